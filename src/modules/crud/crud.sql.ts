// ListQuery -> parameterised SQL for a page, its total count and the CSV export, shaped so that
// PostgreSQL answers from the indexes the migrations create: tenant first, case-insensitive matches
// on lower(column), prefixes as LIKE 'x%', and id as the last sort key in the same direction (a
// stable, index-ordered page). Plain SQL rather than findAll: the list is the hottest path of these
// resources, and building model instances would cost more than the query.
import type { Model, ModelStatic } from 'sequelize';
import type { Scope } from '../../shared/access/scope.ts';
import { Binds, escapeLike } from '../../shared/sql.ts';
import type { FieldSpec, SortTerm } from './crud.definition.ts';
import type { Condition, ListQuery } from './crud.filters.ts';

export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** What the SQL needs of a resource: its table, its columns and how its fields filter. */
export interface TableShape {
  table: string;
  /** Attribute (wire) name -> column. */
  columns: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, FieldSpec>>;
}

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

export function tableShape(model: ModelStatic<Model>, fields: Readonly<Record<string, FieldSpec>>): TableShape {
  const columns = Object.fromEntries(
    Object.entries(model.getAttributes()).map(([name, attribute]) => [name, attribute.field ?? name]),
  );
  return { table: model.getTableName() as string, columns, fields };
}

function column(shape: TableShape, field: string): string {
  const name = shape.columns[field];
  if (!name) throw new Error(`${shape.table} has no column for ${field}`);
  return quote(name);
}

function condition(shape: TableShape, c: Condition, binds: Binds): string {
  const bind = (value: unknown) => binds.add(value);
  const col = column(shape, c.field);
  switch (c.kind) {
    case 'in': {
      const target = shape.fields[c.field]?.caseInsensitive ? `lower(${col})` : col;
      return c.values.length === 1
        ? `${target} = ${bind(c.values[0])}`
        : `${target} IN (${c.values.map(bind).join(', ')})`;
    }
    case 'prefix':
      return `lower(${col}) LIKE ${bind(`${escapeLike(c.value)}%`)}`;
    case 'compare':
      return `${col} ${COMPARE[c.op]} ${bind(c.value)}`;
    case 'between':
      return `${col} BETWEEN ${bind(c.low)} AND ${bind(c.high)}`;
  }
}

export function orderTerms(order: readonly SortTerm[]): SortTerm[] {
  const last = order.at(-1)?.direction ?? 'asc';
  return order.some((term) => term.field === 'id') ? [...order] : [...order, { field: 'id', direction: last }];
}

export interface ListSql {
  rows: SqlQuery;
  count: SqlQuery;
}

/** The scope's predicate (tenant, and what the actor's role may see), as the list and the lookup use it. */
export type ScopeSql = Pick<Scope, 'sql'>;

const selectList = (shape: TableShape) =>
  Object.entries(shape.columns)
    .map(([field, name]) => (field === name ? quote(name) : `${quote(name)} AS ${quote(field)}`))
    .join(', ');

/** The page (or, without `page`, every row: the export) and the total, inside the scope. */
export function listSql(
  shape: TableShape,
  scope: ScopeSql,
  query: ListQuery,
  page?: { limit: number; offset: number },
): ListSql {
  const binds = new Binds();
  const where = [scope.sql(binds), ...query.conditions.map((c) => condition(shape, c, binds))].join(' AND ');
  const filterValues = [...binds.values];
  const order = orderTerms(query.order).map(
    (term) => `${column(shape, term.field)} ${term.direction === 'asc' ? 'ASC' : 'DESC'}`,
  );
  let text = `SELECT ${selectList(shape)} FROM ${quote(shape.table)} WHERE ${where} ORDER BY ${order.join(', ')}`;
  if (page) text += ` LIMIT ${binds.add(page.limit)} OFFSET ${binds.add(page.offset)}`;
  return {
    rows: { text, values: binds.values },
    count: { text: `SELECT count(*)::int AS total FROM ${quote(shape.table)} WHERE ${where}`, values: filterValues },
  };
}

// The by-id read runs on every GET of a record: its fixed part is built once per table shape.
const rowPrefixes = new WeakMap<TableShape, string>();

/** One row by id, inside the scope (another tenant's row, or a draft a member may not see, is not found). */
export function rowSql(shape: TableShape, scope: ScopeSql, id: string): SqlQuery {
  let prefix = rowPrefixes.get(shape);
  if (!prefix)
    rowPrefixes.set(
      shape,
      (prefix = `SELECT ${selectList(shape)} FROM ${quote(shape.table)} WHERE ${column(shape, 'id')} = $1 AND `),
    );
  const binds = new Binds();
  binds.add(id);
  return { text: prefix + scope.sql(binds), values: binds.values };
}
