// A parsed filter as a SQL condition over one resource's table, every value a parameter ($n, never
// spliced into the text). Which attributes may be filtered, and what they are in SQL, is the
// resource's AttributeMap (scim-repository.ts); anything else is an invalidFilter.
import { errors } from '../../../shared/errors.ts';
import { isUuid } from '../../../shared/uuid.ts';
import { type AttrPath, type CompareOp, CORE_SCHEMAS, type Filter, type FilterValue } from './scim-filter.ts';

export interface ScalarAttribute {
  kind: 'scalar';
  sql: string;
  type: 'string' | 'boolean' | 'date' | 'uuid';
  /** RFC 7643 caseExact: false compares lower-cased. */
  caseExact?: boolean;
}

/** A multi-valued attribute: `exists(condition)` is true when one of its values meets the condition. */
export interface MultiValuedAttribute {
  kind: 'multi';
  exists: (condition: string) => string;
  /** Its sub-attributes (lower-cased); `value` is the one a bare `emails eq "…"` means. */
  subs: Record<string, ScalarAttribute>;
}

/** Filterable attributes by lower-cased dotted path (`name.givenname`, `urn:…:user:department`). */
export type AttributeMap = Record<string, ScalarAttribute | MultiValuedAttribute>;

const invalid = (message: string) => errors.invalidFilter('filter', message);

function keyOf(path: AttrPath): string[] {
  const [first, ...rest] = path.segments;
  if (CORE_SCHEMAS.includes(first!)) return rest;
  return first!.startsWith('urn:') ? [`${first}:${rest[0]}`, ...rest.slice(1)] : path.segments;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);
const SQL_OPS: Partial<Record<CompareOp, string>> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

class Translator {
  constructor(
    private readonly attributes: AttributeMap,
    readonly params: unknown[],
  ) {}

  private param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  condition(filter: Filter, scope: Record<string, ScalarAttribute> | null = null): string {
    switch (filter.kind) {
      case 'and':
      case 'or':
        return `(${this.condition(filter.left, scope)} ${filter.kind.toUpperCase()} ${this.condition(filter.right, scope)})`;
      case 'not':
        return `NOT COALESCE(${this.condition(filter.filter, scope)}, false)`;
      case 'valuePath': {
        if (scope) throw invalid('nests one value filter inside another');
        const multi = this.attributes[keyOf(filter.attr).join('.')];
        if (multi?.kind !== 'multi') throw invalid(`cannot filter inside "${filter.attr.segments.join('.')}"`);
        const inner = this.condition(filter.filter, multi.subs);
        const then = filter.then ? ` AND ${this.condition(filter.then, multi.subs)}` : '';
        return multi.exists(`${inner}${then}`);
      }
      case 'present':
      case 'compare':
        return this.attribute(filter, scope);
    }
  }

  private attribute(filter: Filter & { kind: 'present' | 'compare' }, scope: Record<string, ScalarAttribute> | null) {
    const key = keyOf(filter.path);
    const name = filter.path.segments.join('.');
    if (scope) {
      const sub = key.length === 1 ? scope[key[0]!] : undefined;
      if (!sub) throw invalid(`cannot filter on "${name}" here`);
      return this.scalar(sub, filter);
    }
    const attribute = this.attributes[key.join('.')];
    if (attribute?.kind === 'scalar') return this.scalar(attribute, filter);
    const multi = this.attributes[key[0]!];
    if (multi?.kind === 'multi') {
      if (filter.kind === 'present' && key.length === 1) return multi.exists('true');
      const sub = multi.subs[key[1] ?? 'value'];
      if (sub && key.length <= 2) return multi.exists(this.scalar(sub, filter));
    }
    throw invalid(`cannot filter on "${name}"`);
  }

  private scalar(attribute: ScalarAttribute, filter: Filter & { kind: 'present' | 'compare' }): string {
    const { sql, type } = attribute;
    if (filter.kind === 'present') return type === 'string' ? `COALESCE(${sql}, '') <> ''` : `${sql} IS NOT NULL`;
    const { op, value } = filter;
    if (value === null) {
      if (op === 'eq') return `${sql} IS NULL`;
      if (op === 'ne') return `${sql} IS NOT NULL`;
      throw invalid(`compares with null using "${op}"`);
    }
    if (type === 'boolean') return this.boolean(sql, op, value);
    if (type === 'date') return this.date(sql, op, value);
    if (typeof value !== 'string') throw invalid(`compares a text attribute with ${JSON.stringify(value)}`);
    if (type === 'uuid' && (op === 'eq' || op === 'ne')) {
      if (!isUuid(value)) return op === 'eq' ? 'false' : 'true';
      return op === 'eq' ? `${sql} = ${this.param(value)}::uuid` : `${sql} <> ${this.param(value)}::uuid`;
    }
    const ci = !attribute.caseExact;
    const column = type === 'uuid' ? `${sql}::text` : ci ? `lower(${sql})` : sql;
    const text = (v: string) => (ci ? this.param(v.toLowerCase()) : this.param(v));
    switch (op) {
      case 'eq':
        return `${column} = ${text(value)}`;
      case 'ne':
        return `${column} IS DISTINCT FROM ${text(value)}`;
      case 'co':
        return `${column} LIKE ${text(`%${escapeLike(value)}%`)}`;
      case 'sw':
        return `${column} LIKE ${text(`${escapeLike(value)}%`)}`;
      case 'ew':
        return `${column} LIKE ${text(`%${escapeLike(value)}`)}`;
      default:
        return `${column} ${SQL_OPS[op]} ${text(value)}`;
    }
  }

  private boolean(sql: string, op: CompareOp, value: FilterValue): string {
    const flag = typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value;
    if (typeof flag !== 'boolean') throw invalid(`compares a true/false attribute with ${JSON.stringify(value)}`);
    if (op === 'eq') return `${sql} = ${this.param(flag)}`;
    if (op === 'ne') return `${sql} IS DISTINCT FROM ${this.param(flag)}`;
    throw invalid(`uses "${op}" on a true/false attribute (eq, ne or pr)`);
  }

  private date(sql: string, op: CompareOp, value: FilterValue): string {
    const at = typeof value === 'string' ? new Date(value) : null;
    if (!at || Number.isNaN(at.getTime())) throw invalid(`compares a date with ${JSON.stringify(value)}`);
    const sqlOp = op === 'eq' ? '=' : op === 'ne' ? '<>' : SQL_OPS[op];
    if (!sqlOp) throw invalid(`uses "${op}" on a date (eq, ne, gt, ge, lt, le)`);
    return `${sql} ${sqlOp} ${this.param(at.toISOString())}::timestamptz`;
  }
}

/** The condition of `filter` over `attributes`, appending its values to `params` (numbered after them). */
export function filterToSql(filter: Filter, attributes: AttributeMap, params: unknown[]): string {
  return new Translator(attributes, params).condition(filter);
}
