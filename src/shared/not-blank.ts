// "Not blank": a name, title or question holds at least one visible character, not only spaces or
// invisible marks (U+200B zero-width space, soft hyphen, joiners, fillers), which JavaScript's \s does
// not count as space. The contract writes it as `pattern` on every such field (openapi.yaml); the
// users service checks the same for the portal's forms, which reach it without the contract.
export const NOT_BLANK_PATTERN = String.raw`[^\s\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u2060-\u2064\u3164\uFFA0]`;

export const NOT_BLANK = new RegExp(NOT_BLANK_PATTERN, 'u');
