// Query values where a `+` is a `+` (e-mail filters here; date-time offsets in src/http/query-parser.ts).

/**
 * The contract lets `+` go unencoded in query values (`allowReserved`, so that `@` may too), but form
 * decoding, which the query parser follows, reads a `+` as a space. An e-mail address holds no space,
 * so there it is read back as the `+` that was sent (`ann+tag@example.org` found nothing).
 */
export const plusInEmail = (text: string): string => text.replaceAll(' ', '+');
