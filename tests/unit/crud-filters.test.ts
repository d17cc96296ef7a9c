import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldSpec } from '../../src/modules/crud/crud.definition.ts';
import { parseListQuery, parseValue } from '../../src/modules/crud/crud.filters.ts';
import { AppError } from '../../src/shared/errors.ts';

const fields: Record<string, FieldSpec> = {
  email: { type: 'email', filter: 'exact', caseInsensitive: true },
  status: { type: 'string', filter: 'exact', values: ['active', 'lapsed'] },
  userId: { type: 'uuid', filter: 'exact' },
  lastName: { type: 'string', filter: 'partial', sortable: true },
  joinedAt: { type: 'date', filter: 'date', sortable: true },
  createdAt: { type: 'datetime', filter: 'date', sortable: true },
  capacity: { type: 'integer', filter: 'range', sortable: true },
  price: { type: 'decimal', filter: 'range' },
  phone: { type: 'string' },
};
const defaultOrder = [{ field: 'lastName', direction: 'asc' as const }];
const parse = (query: Record<string, unknown>) => parseListQuery(query, fields, defaultOrder);

/** Asserts an invalid_filter refusal that names `parameter`. */
function refuses(query: Record<string, unknown>, parameter: string, message?: RegExp) {
  assert.throws(
    () => parse(query),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'invalid_filter');
      assert.equal(error.extras.errors?.[0]?.field, parameter);
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

describe('list filters (parsing)', () => {
  it('when no filter is given, then there are no conditions and the default order applies', () => {
    assert.deepEqual(parse({ page: 2, itemsPerPage: 10 }), { conditions: [], order: defaultOrder });
  });

  it('when an exact filter has one value or several, then it is an IN list without duplicates', () => {
    assert.deepEqual(parse({ status: 'active' }).conditions, [{ field: 'status', kind: 'in', values: ['active'] }]);
    assert.deepEqual(parse({ status: ['active', 'lapsed', 'active'] }).conditions, [
      { field: 'status', kind: 'in', values: ['active', 'lapsed'] },
    ]);
  });

  it('when an exact filter is case-insensitive, then its values are lower-cased', () => {
    assert.deepEqual(parse({ email: 'Ann@Example.COM' }).conditions[0], {
      field: 'email',
      kind: 'in',
      values: ['ann@example.com'],
    });
  });

  it('when a partial filter is given, then it is a lower-case prefix', () => {
    assert.deepEqual(parse({ lastName: 'SMi' }).conditions, [{ field: 'lastName', kind: 'prefix', value: 'smi' }]);
  });

  it('when date operators are given, then after/before are inclusive and strictly_* exclusive', () => {
    const { conditions } = parse({
      createdAt: {
        after: '2026-01-01',
        before: '2026-01-31T12:00:00+02:00',
        strictly_after: '2025-12-31T00:00:00Z',
        strictly_before: '2026-02-01',
      },
    });
    assert.deepEqual(conditions, [
      { field: 'createdAt', kind: 'compare', op: 'gte', value: '2026-01-01T00:00:00.000Z' },
      { field: 'createdAt', kind: 'compare', op: 'lte', value: '2026-01-31T10:00:00.000Z' },
      { field: 'createdAt', kind: 'compare', op: 'gt', value: '2025-12-31T00:00:00.000Z' },
      { field: 'createdAt', kind: 'compare', op: 'lt', value: '2026-02-01T00:00:00.000Z' },
    ]);
    assert.deepEqual(parse({ joinedAt: { after: '2024-02-29' } }).conditions[0], {
      field: 'joinedAt',
      kind: 'compare',
      op: 'gte',
      value: '2024-02-29',
    });
  });

  it('when numeric range operators are given, then each becomes a comparison and between a closed range', () => {
    assert.deepEqual(parse({ capacity: { gt: 1, gte: '2', lt: 30, lte: '40', between: '10..20' } }).conditions, [
      { field: 'capacity', kind: 'compare', op: 'gt', value: 1 },
      { field: 'capacity', kind: 'compare', op: 'gte', value: 2 },
      { field: 'capacity', kind: 'compare', op: 'lt', value: 30 },
      { field: 'capacity', kind: 'compare', op: 'lte', value: 40 },
      { field: 'capacity', kind: 'between', low: 10, high: 20 },
    ]);
    assert.deepEqual(parse({ price: { between: '9.5..10.25' } }).conditions[0], {
      field: 'price',
      kind: 'between',
      low: 9.5,
      high: 10.25,
    });
  });

  it('when order keys are given, then they keep their order and direction', () => {
    assert.deepEqual(parse({ order: { joinedAt: 'desc', lastName: 'asc' } }).order, [
      { field: 'joinedAt', direction: 'desc' },
      { field: 'lastName', direction: 'asc' },
    ]);
  });

  it('when a bracketed parameter arrives empty (the validator default), then it is ignored', () => {
    assert.deepEqual(parse({ createdAt: {}, order: {} }), { conditions: [], order: defaultOrder });
  });

  it('when a filter is unknown or not filterable, then it is refused by name', () => {
    refuses({ nickname: 'x' }, 'nickname', /not a filter/);
    refuses({ phone: '123' }, 'phone');
  });

  it('when an operator is unknown or missing, then the parameter with its operator is named', () => {
    refuses(
      { createdAt: { since: '2026-01-01' } },
      'createdAt[since]',
      /after, before, strictly_after, strictly_before/,
    );
    refuses({ capacity: { after: '3' } }, 'capacity[after]', /gt, gte, lt, lte, between/);
    refuses({ createdAt: '2026-01-01' }, 'createdAt', /operator/);
    refuses({ status: { in: 'x' } }, 'status');
  });

  it('when a value is malformed, then the parameter is named', () => {
    refuses({ createdAt: { after: 'yesterday' } }, 'createdAt[after]', /ISO 8601/);
    refuses({ createdAt: { after: '2026-02-30' } }, 'createdAt[after]');
    refuses({ createdAt: { after: '2026-01-01T10:00:00' } }, 'createdAt[after]', /time zone/);
    refuses({ joinedAt: { before: '2026-01-01T00:00:00Z' } }, 'joinedAt[before]', /YYYY-MM-DD/);
    refuses({ capacity: { gte: '1.5' } }, 'capacity[gte]', /integer/);
    refuses({ capacity: { between: '10-20' } }, 'capacity[between]', /<low>\.\.<high>/);
    refuses({ capacity: { between: '20..10' } }, 'capacity[between]', /greater/);
    refuses({ status: 'dormant' }, 'status', /one of active, lapsed/);
    refuses({ userId: 'not-a-uuid' }, 'userId', /UUID/);
    refuses({ lastName: ['a', 'b'] }, 'lastName', /one text value/);
    refuses({ lastName: '   ' }, 'lastName', /empty/);
    refuses({ status: Array(101).fill('active') }, 'status', /at most 100/);
  });

  it('when a number is not written as a plain decimal, then the parameter is named', () => {
    for (const text of ['0x10', '1e2', ' 12', '12 ', '+5', '.5', 'Infinity']) {
      refuses({ price: { gte: text } }, 'price[gte]', /number/);
      refuses({ capacity: { lt: text } }, 'capacity[lt]', /integer/);
    }
    refuses({ capacity: { lt: '60.0' } }, 'capacity[lt]', /integer/);
    refuses({ price: { between: '0x10..20' } }, 'price[between]', /number/);
    assert.deepEqual(parse({ price: { gte: '-0.5' }, capacity: { between: '-3..7' } }).conditions, [
      { field: 'price', kind: 'compare', op: 'gte', value: -0.5 },
      { field: 'capacity', kind: 'between', low: -3, high: 7 },
    ]);
  });

  it('when a date or date-time lands outside years 1 to 9999 in UTC, then the parameter is named', () => {
    const years = /between years 1 and 9999 \(UTC\)/;
    refuses({ createdAt: { before: '9999-12-31T23:59:59-14:00' } }, 'createdAt[before]', years);
    refuses({ createdAt: { after: '0001-01-01T00:00:00+01:00' } }, 'createdAt[after]', years);
    refuses({ createdAt: { after: '0000-06-01' } }, 'createdAt[after]', years);
    refuses({ joinedAt: { after: '0000-06-01' } }, 'joinedAt[after]', /YYYY-MM-DD/);
    assert.deepEqual(
      parse({
        createdAt: { after: '0001-01-01', before: '9999-12-31T23:59:59.999Z' },
        joinedAt: { after: '0050-03-01' },
      }).conditions,
      [
        { field: 'createdAt', kind: 'compare', op: 'gte', value: '0001-01-01T00:00:00.000Z' },
        { field: 'createdAt', kind: 'compare', op: 'lte', value: '9999-12-31T23:59:59.999Z' },
        { field: 'joinedAt', kind: 'compare', op: 'gte', value: '0050-03-01' },
      ],
    );
  });

  it('when the order is malformed, then order[field] is named', () => {
    refuses({ order: { phone: 'asc' } }, 'order[phone]', /sortable fields: lastName, joinedAt, createdAt, capacity/);
    refuses({ order: { lastName: 'up' } }, 'order[lastName]', /asc or desc/);
    refuses({ order: 'lastName' }, 'order');
  });

  it('when a single value is parsed, then it is normalised by type', () => {
    assert.equal(
      parseValue('x', { type: 'uuid' }, 'AAAAAAAA-0000-4000-8000-000000000000'),
      'aaaaaaaa-0000-4000-8000-000000000000',
    );
    assert.equal(parseValue('x', { type: 'decimal' }, 12.5), 12.5);
    assert.equal(parseValue('x', { type: 'string' }, ' trimmed '), 'trimmed');
  });
});
