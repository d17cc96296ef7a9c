import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sequelize, type WhereOptions } from 'sequelize';
import { selectSql } from '../../src/modules/crud/crud.csv.ts';
import { memberResource } from '../../src/modules/members/member.definition.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { escapeLike, toSequelizeOrder, toSequelizeWhere } from '../../src/modules/crud/crud.query.ts';

// an unconnected Sequelize is enough to render SQL
const sequelize = new Sequelize('postgres://localhost/none', { dialect: 'postgres', logging: false, define: { underscored: true } });
Member.initModel(sequelize);
const whereSql = (where: WhereOptions) => selectSql(sequelize, Member, { where }).split(' WHERE ')[1]!;

describe('list filters (SQL)', () => {
  it('when filters are translated, then the tenant comes first and matches use the indexed expressions', () => {
    const where = toSequelizeWhere(Member, memberResource.fields, 'org-1', {
      conditions: [
        { field: 'email', kind: 'in', values: ['a@b.c', 'd@e.f'] },
        { field: 'lastName', kind: 'prefix', value: 'o_b%' },
        { field: 'status', kind: 'in', values: ['active'] },
        { field: 'createdAt', kind: 'compare', op: 'gte', value: '2026-01-01T00:00:00.000Z' },
        { field: 'joinedAt', kind: 'compare', op: 'lt', value: '2026-02-01' },
      ],
      order: [],
    });
    const sql = whereSql(where);
    assert.match(sql, /^\("Member"."organization_id" = 'org-1' AND /);
    assert.match(sql, /lower\("email"\) IN \('a@b.c', 'd@e.f'\)/);
    assert.match(sql, /lower\("last_name"\) LIKE 'o\\_b\\%%'/);
    assert.match(sql, /"Member"."status" = 'active'/);
    assert.match(sql, /"Member"."created_at" >= '2026-01-01 00:00:00.000 \+00:00'/);
    assert.match(sql, /"Member"."joined_at" < '2026-02-01'/);
  });

  it('when LIKE wildcards are typed, then they are escaped', () => {
    assert.equal(escapeLike('50%_off\\'), '50\\%\\_off\\\\');
  });

  it('when an order is given, then id breaks ties in the direction of the last key', () => {
    assert.deepEqual(toSequelizeOrder([{ field: 'lastName', direction: 'asc' }]), [['lastName', 'ASC'], ['id', 'ASC']]);
    assert.deepEqual(toSequelizeOrder([{ field: 'status', direction: 'asc' }, { field: 'joinedAt', direction: 'desc' }]), [['status', 'ASC'], ['joinedAt', 'DESC'], ['id', 'DESC']]);
  });
});
