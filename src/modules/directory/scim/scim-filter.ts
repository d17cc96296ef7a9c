// RFC 7644 §3.4.2.2 filters, parsed into a small tree: `eq ne co sw ew gt ge lt le pr`, `and`, `or`,
// `not (...)`, parentheses, value paths `emails[type eq "work"]` and the form identity providers write,
// `emails[type eq "work"].value eq "…"`. Operators and attribute names are case-insensitive; `not`
// binds tighter than `and`, `and` tighter than `or`. Translating a tree to SQL is scim-filter.sql.ts's.

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type FilterValue = string | number | boolean | null;

/** An attribute path: `userName`, `name.givenName`, `urn:…:enterprise:2.0:User:department`. */
export interface AttrPath {
  /** Lower-cased segments; a schema URN prefix, when given, is the first. */
  segments: string[];
}

export type Filter =
  | { kind: 'compare'; path: AttrPath; op: CompareOp; value: FilterValue }
  | { kind: 'present'; path: AttrPath }
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; filter: Filter }
  /** `attr[filter]`, or `attr[filter].sub <op> value` when `then` is set (a filter on the sub-attribute). */
  | { kind: 'valuePath'; attr: AttrPath; filter: Filter; then?: Filter };

export class FilterSyntaxError extends Error {}

const COMPARE_OPS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const ATTR = /^[A-Za-z$][\w$:.-]*$/;

type Token = { type: 'word' | 'string' | '(' | ')' | '[' | ']'; text: string; value?: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) i++;
    else if ('()[]'.includes(c)) {
      tokens.push({ type: c as Token['type'], text: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < input.length && input[j] !== '"') j += input[j] === '\\' ? 2 : 1;
      if (j >= input.length) throw new FilterSyntaxError('has an unterminated string');
      const text = input.slice(i, j + 1);
      let value: string;
      try {
        value = JSON.parse(text) as string;
      } catch {
        throw new FilterSyntaxError(`has an invalid string ${text}`);
      }
      // escapes can spell what PostgreSQL cannot compare with stored text ("\u0000", a lone "\ud800")
      if (value.includes('\u0000') || !value.isWellFormed())
        throw new FilterSyntaxError(`has a string with a NUL character or a lone surrogate: ${text}`);
      tokens.push({ type: 'string', text, value });
      i = j + 1;
    } else {
      let j = i;
      while (j < input.length && !/[\s()[\]"]/.test(input[j]!)) j++;
      tokens.push({ type: 'word', text: input.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** The core schemas' URNs, lower-cased: an attribute qualified by one is the plain attribute. */
export const CORE_SCHEMAS = [
  'urn:ietf:params:scim:schemas:core:2.0:user',
  'urn:ietf:params:scim:schemas:core:2.0:group',
];

/** Splits `urn:…:User:attr.sub` into [urn, attr, sub]; plain paths on their dots. Lower-cased. */
export function attrPath(text: string): AttrPath {
  if (!ATTR.test(text)) throw new FilterSyntaxError(`names no attribute: "${text}"`);
  const lower = text.toLowerCase();
  if (lower.startsWith('urn:')) {
    const cut = lower.lastIndexOf(':');
    const rest = lower.slice(cut + 1);
    if (!rest) throw new FilterSyntaxError(`names no attribute: "${text}"`);
    return { segments: [lower.slice(0, cut), ...rest.split('.')] };
  }
  const segments = lower.split('.');
  if (segments.some((s) => !s)) throw new FilterSyntaxError(`names no attribute: "${text}"`);
  return { segments };
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.or();
    if (this.at < this.tokens.length) throw new FilterSyntaxError(`has "${this.tokens[this.at]!.text}" out of place`);
    return filter;
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private next(what: string): Token {
    const token = this.tokens[this.at++];
    if (!token) throw new FilterSyntaxError(`ends where ${what} was expected`);
    return token;
  }

  private isWord(word: string): boolean {
    const token = this.peek();
    return token?.type === 'word' && token.text.toLowerCase() === word;
  }

  private expect(type: Token['type']): void {
    const token = this.next(`"${type}"`);
    if (token.type !== type) throw new FilterSyntaxError(`has "${token.text}" where "${type}" was expected`);
  }

  private or(): Filter {
    let left = this.and();
    while (this.isWord('or')) {
      this.at++;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Filter {
    let left = this.unary();
    while (this.isWord('and')) {
      this.at++;
      left = { kind: 'and', left, right: this.unary() };
    }
    return left;
  }

  private unary(): Filter {
    if (this.isWord('not')) {
      this.at++;
      this.expect('(');
      const filter = this.or();
      this.expect(')');
      return { kind: 'not', filter };
    }
    if (this.peek()?.type === '(') {
      this.at++;
      const filter = this.or();
      this.expect(')');
      return filter;
    }
    return this.attribute();
  }

  private attribute(): Filter {
    const token = this.next('an attribute');
    if (token.type !== 'word') throw new FilterSyntaxError(`has "${token.text}" where an attribute was expected`);
    const path = attrPath(token.text);
    if (this.peek()?.type !== '[') return this.comparison(path);
    this.at++;
    const filter = this.or();
    this.expect(']');
    const sub = this.peek();
    if (sub?.type === 'word' && sub.text.startsWith('.')) {
      this.at++;
      const then = this.comparison(attrPath(sub.text.slice(1)));
      return { kind: 'valuePath', attr: path, filter, then };
    }
    return { kind: 'valuePath', attr: path, filter };
  }

  private comparison(path: AttrPath): Filter {
    const opToken = this.next('an operator');
    const op = opToken.text.toLowerCase();
    if (opToken.type === 'word' && op === 'pr') return { kind: 'present', path };
    if (opToken.type !== 'word' || !COMPARE_OPS.has(op))
      throw new FilterSyntaxError(`has "${opToken.text}" where an operator (eq, co, sw, pr, …) was expected`);
    return { kind: 'compare', path, op: op as CompareOp, value: this.value() };
  }

  private value(): FilterValue {
    const token = this.next('a value');
    if (token.type === 'string') return token.value!;
    if (token.type === 'word') {
      const word = token.text.toLowerCase();
      if (word === 'true' || word === 'false') return word === 'true';
      if (word === 'null') return null;
      if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.text)) return Number(token.text);
    }
    throw new FilterSyntaxError(
      `has ${token.text} where a value (a "string", true, false, null or a number) was expected`,
    );
  }
}

const MAX_FILTER_LENGTH = 2000;

/** The tree of a filter; FilterSyntaxError says what is wrong with it. */
export function parseFilter(input: string): Filter {
  if (input.length > MAX_FILTER_LENGTH) throw new FilterSyntaxError(`is longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(input);
  if (tokens.length === 0) throw new FilterSyntaxError('is empty');
  return new Parser(tokens).parse();
}

/** Whether a JSON value (an element of a multi-valued attribute) matches a filter, for PATCH value paths. */
export function matches(element: unknown, filter: Filter): boolean {
  switch (filter.kind) {
    case 'and':
      return matches(element, filter.left) && matches(element, filter.right);
    case 'or':
      return matches(element, filter.left) || matches(element, filter.right);
    case 'not':
      return !matches(element, filter.filter);
    case 'present': {
      const value = valueAt(element, filter.path);
      return value !== undefined && value !== null && value !== '';
    }
    case 'compare':
      return compare(valueAt(element, filter.path), filter.op, filter.value);
    case 'valuePath':
      return false;
  }
}

function valueAt(element: unknown, path: AttrPath): unknown {
  let value: unknown = element;
  for (const segment of path.segments) {
    if (value === null || typeof value !== 'object') return undefined;
    const key = Object.keys(value).find((k) => k.toLowerCase() === segment);
    value = key === undefined ? undefined : (value as Record<string, unknown>)[key];
  }
  return value;
}

function compare(actual: unknown, op: CompareOp, expected: FilterValue): boolean {
  if (typeof actual === 'string' && typeof expected === 'string') {
    const [a, b] = [actual.toLowerCase(), expected.toLowerCase()];
    const ops: Record<CompareOp, () => boolean> = {
      eq: () => a === b,
      ne: () => a !== b,
      co: () => a.includes(b),
      sw: () => a.startsWith(b),
      ew: () => a.endsWith(b),
      gt: () => a > b,
      ge: () => a >= b,
      lt: () => a < b,
      le: () => a <= b,
    };
    return ops[op]();
  }
  const normal = (v: unknown) => (typeof v === 'string' && /^(true|false)$/i.test(v) ? v.toLowerCase() === 'true' : v);
  if (op === 'eq') return normal(actual) === expected || (actual === undefined && expected === null);
  if (op === 'ne') return normal(actual) !== expected;
  return false;
}
