// ListQuery -> Sequelize where and order, shaped so that PostgreSQL can answer from the indexes the
// migrations create: tenant first, case-insensitive matches on lower(column), prefixes as
// LIKE 'x%', and id as the last sort key in the same direction (a stable, index-ordered page).
import { Op, Sequelize, type Model, type ModelStatic, type OrderItem, type WhereOptions } from 'sequelize';
import type { FieldSpec, SortTerm } from './crud.definition.ts';
import type { Condition, ListQuery } from './crud.filters.ts';

const COMPARE = { gt: Op.gt, gte: Op.gte, lt: Op.lt, lte: Op.lte } as const;

/** `%`, `_` and `\` typed by a client are literal characters, not wildcards. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function columnOf(model: ModelStatic<Model>, field: string): string {
  const attribute = model.getAttributes()[field];
  if (!attribute) throw new Error(`${model.name} has no attribute ${field}`);
  return attribute.field ?? field;
}

function lowerColumn(model: ModelStatic<Model>, field: string) {
  return Sequelize.fn('lower', Sequelize.col(columnOf(model, field)));
}

function toWhere(model: ModelStatic<Model>, fields: Readonly<Record<string, FieldSpec>>, condition: Condition): WhereOptions {
  const { field } = condition;
  switch (condition.kind) {
    case 'in': {
      const match = condition.values.length === 1 ? condition.values[0] : { [Op.in]: condition.values };
      return fields[field]?.caseInsensitive ? Sequelize.where(lowerColumn(model, field), match as never) : { [field]: match };
    }
    case 'prefix':
      return Sequelize.where(lowerColumn(model, field), { [Op.like]: `${escapeLike(condition.value)}%` });
    case 'compare':
      return { [field]: { [COMPARE[condition.op]]: condition.value } };
    case 'between':
      return { [field]: { [Op.between]: [condition.low, condition.high] } };
  }
}

export function toSequelizeWhere(
  model: ModelStatic<Model>,
  fields: Readonly<Record<string, FieldSpec>>,
  organizationId: string,
  query: ListQuery,
): WhereOptions {
  return { [Op.and]: [{ organizationId }, ...query.conditions.map((condition) => toWhere(model, fields, condition))] };
}

export function toSequelizeOrder(order: readonly SortTerm[]): OrderItem[] {
  const items: OrderItem[] = order.map(({ field, direction }) => [field, direction.toUpperCase()]);
  const last = order.at(-1)?.direction ?? 'asc';
  if (!order.some((term) => term.field === 'id')) items.push(['id', last.toUpperCase()]);
  return items;
}
