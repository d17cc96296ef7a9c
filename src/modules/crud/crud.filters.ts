// List query string -> a small, database-neutral description of the filters and the order.
// Pure: every refusal names the parameter (`createdAt[after]`, `order[lastName]`), so a client
// sees exactly what to fix. The contract (openapi.yaml) checks most of this first; this is the
// source of truth for callers that do not come through HTTP.
import { isStorableInstant, OUTSIDE_STORABLE_YEARS } from '../../shared/date-time.ts';
import { plusInEmail } from '../../shared/query-plus.ts';
import { errors } from '../../shared/errors.ts';
import type { FieldSpec, SortDirection, SortTerm, ValueType } from './crud.definition.ts';
import { isUuid } from '../../shared/uuid.ts';

export type Scalar = string | number;
export type CompareOp = 'gt' | 'gte' | 'lt' | 'lte';

export type Condition =
  | { field: string; kind: 'in'; values: Scalar[] }
  | { field: string; kind: 'prefix'; value: string }
  | { field: string; kind: 'compare'; op: CompareOp; value: Scalar }
  | { field: string; kind: 'between'; low: number; high: number };

export interface ListQuery {
  conditions: Condition[];
  order: SortTerm[];
}

/** Query parameters that are not filters. */
export const RESERVED_PARAMETERS = ['page', 'itemsPerPage', 'order'] as const;
export const MAX_VALUES = 100;

export const DATE_OPERATORS: Readonly<Record<string, CompareOp>> = {
  after: 'gte',
  before: 'lte',
  strictly_after: 'gt',
  strictly_before: 'lt',
};
export const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'between'] as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const INTEGER = /^-?\d{1,10}$/;
// integer fields are PostgreSQL `integer` columns: a bound they cannot hold fails in the database
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };
const DECIMAL = /^-?\d{1,15}(\.\d{1,6})?$/;

/** A YYYY-MM-DD day that exists on the calendar, whatever its year (0000 to 9999). */
function dayOf(text: string): Date | undefined {
  if (!DATE.test(text)) return undefined;
  // parsed as ISO text: Date.UTC would read years 0 to 99 as 1900 to 1999
  const date = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text) ? date : undefined;
}

/** A day on the calendar that PostgreSQL and the contract can carry (years 1 to 9999). */
export function isCalendarDate(text: string): boolean {
  const day = dayOf(text);
  return day !== undefined && isStorableInstant(day);
}

/** One value of a field, checked and normalised; throws invalid_filter naming `parameter`. */
export function parseValue(parameter: string, spec: FieldSpec, raw: unknown): Scalar {
  if (typeof raw === 'number' && (spec.type === 'integer' || spec.type === 'decimal')) raw = String(raw);
  if (typeof raw !== 'string') throw errors.invalidFilter(parameter, 'must be a single value');
  const sent = raw;
  const text = raw.trim();
  if (text === '') throw errors.invalidFilter(parameter, 'must not be empty');
  const checks: Record<ValueType, () => Scalar | undefined> = {
    string: () => (text.length <= 200 ? text : undefined),
    email: () => (text.length <= 320 ? plusInEmail(text) : undefined),
    uuid: () => (isUuid(text) ? text.toLowerCase() : undefined),
    date: () => (isCalendarDate(text) ? text : undefined),
    datetime: () => {
      const day = dayOf(text.slice(0, 10));
      if (!day || (text.length > 10 && !DATE_TIME.test(text))) return undefined;
      const instant = text.length > 10 ? new Date(text) : day;
      if (Number.isNaN(instant.getTime())) return undefined;
      // an offset can carry a valid day out of range: 9999-12-31T23:59:59-14:00 is year 10000 in UTC
      if (!isStorableInstant(instant)) throw errors.invalidFilter(parameter, OUTSIDE_STORABLE_YEARS);
      // a Date keeps milliseconds (it truncates the rest); the database compares to the microsecond, so
      // a bound of 10:00:00.0004 must not become 10:00:00.000 (an inclusive [after] would take it)
      const micros = /\.(\d{4,6})(?=Z|[+-])/.exec(text)?.[1];
      return micros ? instant.toISOString().replace(/\.\d{3}Z$/, `.${micros.padEnd(6, '0')}Z`) : instant.toISOString();
    },
    // numbers are checked as sent, untrimmed: Number() would also take ' 12', '0x10' and '1e2'
    integer: () =>
      INTEGER.test(sent) && Number(sent) >= INT32.min && Number(sent) <= INT32.max ? Number(sent) : undefined,
    decimal: () => (DECIMAL.test(sent) ? Number(sent) : undefined),
  };
  const value = checks[spec.type]();
  if (value === undefined) throw errors.invalidFilter(parameter, `is not a valid ${describe(spec.type)}`);
  if (spec.values && !spec.values.includes(String(value))) {
    throw errors.invalidFilter(parameter, `must be one of ${spec.values.join(', ')}`);
  }
  return spec.caseInsensitive && typeof value === 'string' ? value.toLowerCase() : value;
}

function describe(type: ValueType): string {
  return {
    string: 'text of at most 200 characters',
    email: 'e-mail address',
    uuid: 'UUID',
    date: 'date (YYYY-MM-DD)',
    datetime: 'ISO 8601 date or date-time with a time zone',
    integer: `integer from ${INT32.min} to ${INT32.max}`,
    decimal: 'number',
  }[type];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function exact(name: string, spec: FieldSpec, raw: unknown): Condition {
  const list = Array.isArray(raw) ? raw : [raw];
  if (isPlainObject(raw))
    throw errors.invalidFilter(name, `takes a value (${name}=x) or several (${name}[]=x&${name}[]=y), not an operator`);
  if (list.length === 0) throw errors.invalidFilter(name, 'must not be empty');
  if (list.length > MAX_VALUES) throw errors.invalidFilter(name, `takes at most ${MAX_VALUES} values`);
  return { field: name, kind: 'in', values: [...new Set(list.map((v) => parseValue(name, spec, v)))] };
}

function partial(name: string, spec: FieldSpec, raw: unknown): Condition {
  if (typeof raw !== 'string') throw errors.invalidFilter(name, 'takes one text value (a case-insensitive prefix)');
  return { field: name, kind: 'prefix', value: String(parseValue(name, spec, raw)).toLowerCase() };
}

function operators(name: string, raw: unknown, allowed: readonly string[]): Array<[string, unknown]> {
  if (!isPlainObject(raw))
    throw errors.invalidFilter(name, `needs an operator: ${allowed.map((op) => `${name}[${op}]`).join(', ')}`);
  const entries = Object.entries(raw);
  if (entries.length === 0) throw errors.invalidFilter(name, 'needs an operator');
  for (const [op] of entries) {
    if (!allowed.includes(op))
      throw errors.invalidFilter(`${name}[${op}]`, `is not a supported operator; use ${allowed.join(', ')}`);
  }
  return entries;
}

function dateRange(name: string, spec: FieldSpec, raw: unknown): Condition[] {
  return operators(name, raw, Object.keys(DATE_OPERATORS)).map(([op, value]) => ({
    field: name,
    kind: 'compare',
    op: DATE_OPERATORS[op]!,
    value: parseValue(`${name}[${op}]`, spec, value),
  }));
}

function numericRange(name: string, spec: FieldSpec, raw: unknown): Condition[] {
  return operators(name, raw, RANGE_OPERATORS).map(([op, value]): Condition => {
    const parameter = `${name}[${op}]`;
    if (op !== 'between')
      return { field: name, kind: 'compare', op: op as CompareOp, value: parseValue(parameter, spec, value) };
    const bounds = typeof value === 'string' ? value.split('..') : [];
    if (bounds.length !== 2) throw errors.invalidFilter(parameter, 'must look like <low>..<high>, e.g. 10..20');
    const [low, high] = bounds.map((bound) => Number(parseValue(parameter, spec, bound))) as [number, number];
    if (low > high) throw errors.invalidFilter(parameter, 'has a low bound greater than its high bound');
    return { field: name, kind: 'between', low, high };
  });
}

function parseOrder(raw: unknown, fields: Readonly<Record<string, FieldSpec>>): SortTerm[] {
  if (!isPlainObject(raw)) throw errors.invalidFilter('order', 'takes order[<field>]=asc|desc');
  const sortable = Object.keys(fields).filter((name) => fields[name]!.sortable);
  return Object.entries(raw).map(([field, direction]) => {
    const parameter = `order[${field}]`;
    if (!fields[field]?.sortable)
      throw errors.invalidFilter(parameter, `cannot sort by ${field}; sortable fields: ${sortable.join(', ')}`);
    if (direction !== 'asc' && direction !== 'desc') throw errors.invalidFilter(parameter, 'must be asc or desc');
    return { field, direction: direction as SortDirection };
  });
}

export function parseListQuery(
  query: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, FieldSpec>>,
  defaultOrder: readonly SortTerm[],
): ListQuery {
  const conditions: Condition[] = [];
  let order: SortTerm[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (raw === undefined || name === 'page' || name === 'itemsPerPage') continue;
    // the contract validator gives every absent bracketed parameter (createdAt[...], order[...]) as {}
    if (isPlainObject(raw) && Object.keys(raw).length === 0) continue;
    if (name === 'order') {
      order = parseOrder(raw, fields);
      continue;
    }
    const spec = fields[name];
    if (!spec?.filter) {
      const filters = Object.keys(fields).filter((field) => fields[field]!.filter);
      throw errors.invalidFilter(name, `is not a filter of this list; filters: ${filters.join(', ')}`);
    }
    if (spec.filter === 'exact') conditions.push(exact(name, spec, raw));
    else if (spec.filter === 'partial') conditions.push(partial(name, spec, raw));
    else if (spec.filter === 'date') conditions.push(...dateRange(name, spec, raw));
    else conditions.push(...numericRange(name, spec, raw));
  }
  return { conditions, order: order.length ? order : [...defaultOrder] };
}
