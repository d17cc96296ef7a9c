// AdminJS reads a list's `page` and `perPage` from the URL as they are: page=-1, perPage=-5 and
// perPage=abc reached the database as a negative OFFSET, a negative LIMIT or NaN (a query error, which
// the portal answered with a 500). Values that are not whole numbers in range are dropped from the URL
// before AdminJS reads it, so its defaults apply (page 1, the portal's 25 a page; it caps perPage at 500).
const WHOLE = /^[1-9]\d{0,8}$/;

/** The URL without a `page` or `perPage` that is not a positive whole number; the same string when both are. */
export function withValidPaging(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  let dropped = false;
  for (const name of ['page', 'perPage']) {
    const values = params.getAll(name);
    if (values.length === 0 || (values.length === 1 && WHOLE.test(values[0]!))) continue;
    params.delete(name);
    dropped = true;
  }
  if (!dropped) return url;
  const rest = params.toString();
  return rest ? `${url.slice(0, query)}?${rest}` : url.slice(0, query);
}
