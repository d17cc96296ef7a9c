import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listSql, orderTerms, rowSql, type TableShape } from '../../src/modules/crud/crud.sql.ts';
import { memberResource } from '../../src/modules/members/member.definition.ts';
import type { Actor } from '../../src/shared/access/actor.ts';
import { scopeFor } from '../../src/shared/access/scope.ts';
import { escapeLike } from '../../src/shared/sql.ts';

const apiKey: Actor = { type: 'api_key', id: 'key-1', organizationId: 'org-1', role: 'API_KEY', mfaVerified: true };
const memberScope = scopeFor(apiKey, 'member', 'read');

const shape: TableShape = {
  table: 'members',
  columns: {
    id: 'id',
    organizationId: 'organization_id',
    email: 'email',
    lastName: 'last_name',
    status: 'status',
    createdAt: 'created_at',
    joinedAt: 'joined_at',
  },
  fields: memberResource.fields,
};

describe('list SQL', () => {
  it('when filters are translated, then the tenant comes first, values are bound and matches use the indexed expressions', () => {
    const { rows, count } = listSql(
      shape,
      memberScope,
      {
        conditions: [
          { field: 'email', kind: 'in', values: ['a@b.c', 'd@e.f'] },
          { field: 'lastName', kind: 'prefix', value: 'o_b%' },
          { field: 'status', kind: 'in', values: ['active'] },
          { field: 'createdAt', kind: 'compare', op: 'gte', value: '2026-01-01T00:00:00.000Z' },
          { field: 'joinedAt', kind: 'between', low: 1, high: 2 },
        ],
        order: [{ field: 'lastName', direction: 'desc' }],
      },
      { limit: 25, offset: 50 },
    );
    const where =
      'organization_id = $1 AND lower("email") IN ($2, $3) AND lower("last_name") LIKE $4 AND "status" = $5 AND "created_at" >= $6 AND "joined_at" BETWEEN $7 AND $8';
    assert.equal(
      rows.text,
      `SELECT "id", "organization_id" AS "organizationId", "email", "last_name" AS "lastName", "status", "created_at" AS "createdAt", "joined_at" AS "joinedAt" FROM "members" WHERE ${where} ORDER BY "last_name" DESC, "id" DESC LIMIT $9 OFFSET $10`,
    );
    assert.deepEqual(rows.values, [
      'org-1',
      'a@b.c',
      'd@e.f',
      'o\\_b\\%%',
      'active',
      '2026-01-01T00:00:00.000Z',
      1,
      2,
      25,
      50,
    ]);
    assert.equal(count.text, `SELECT count(*)::int AS total FROM "members" WHERE ${where}`);
    assert.deepEqual(count.values, rows.values.slice(0, 8));
  });

  it('when there is no page (the export), then every row is selected in order', () => {
    const { rows } = listSql(shape, memberScope, { conditions: [], order: [{ field: 'createdAt', direction: 'asc' }] });
    assert.match(rows.text, /WHERE organization_id = \$1 ORDER BY "created_at" ASC, "id" ASC$/);
    assert.deepEqual(rows.values, ['org-1']);
  });

  it('when one row is read, then the id and the scope are both in the WHERE', () => {
    const { text, values } = rowSql(shape, memberScope, 'id-1');
    assert.match(text, /FROM "members" WHERE "id" = \$1 AND organization_id = \$2$/);
    assert.deepEqual(values, ['id-1', 'org-1']);
  });

  it('when LIKE wildcards are typed, then they are escaped', () => {
    assert.equal(escapeLike('50%_off\\'), '50\\%\\_off\\\\');
  });

  it('when an order is given, then id breaks ties in the direction of the last key', () => {
    assert.deepEqual(orderTerms([{ field: 'lastName', direction: 'asc' }]), [
      { field: 'lastName', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
    assert.deepEqual(
      orderTerms([
        { field: 'status', direction: 'asc' },
        { field: 'joinedAt', direction: 'desc' },
      ]).at(-1),
      { field: 'id', direction: 'desc' },
    );
    assert.throws(
      () => listSql(shape, memberScope, { conditions: [{ field: 'nope', kind: 'in', values: ['x'] }], order: [] }),
      /no column for nope/,
    );
  });
});
