// Every filter and sort has an index, and the list staff use most (active members by last name, a
// deep page) runs on one over 100,000 members, with its total count from an index as well.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QueryTypes } from 'sequelize';
import { courseResource } from '../../src/modules/courses/course.definition.ts';
import type { FieldSpec } from '../../src/modules/crud/crud.definition.ts';
import { eventResource } from '../../src/modules/events/event.definition.ts';
import { memberResource } from '../../src/modules/members/member.definition.ts';
import { bearer, buildApiKey, buildOrganization } from '../factories/index.ts';
import { seedMembers } from '../factories/records.ts';
import { Sql } from '../../src/shared/sql.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

describe('list indexes', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function indexKeys(table: string): Promise<string[][]> {
    const rows = await t.db.sequelize.query<{ def: string }>(
      'SELECT indexdef AS def FROM pg_indexes WHERE tablename = $1',
      { bind: [table], type: QueryTypes.SELECT },
    );
    return rows.map(({ def }) => {
      // the key list is the first balanced (...) after USING; a partial index's WHERE follows it
      const start = def.indexOf('(', def.indexOf(' USING '));
      let depth = 0;
      let end = start;
      for (; end < def.length; end++) {
        if (def[end] === '(') depth++;
        if (def[end] === ')' && --depth === 0) break;
      }
      return def
        .slice(start + 1, end)
        .split(/,\s*(?![^()]*\))/)
        .map((key) => key.replace(/::text/g, '').trim());
    });
  }

  for (const [table, fields] of [
    ['members', memberResource.fields],
    ['events', eventResource.fields],
    ['courses', courseResource.fields],
  ] as Array<[string, Readonly<Record<string, FieldSpec>>]>) {
    it(`when ${table} are filtered or sorted by any declared field, then an index leads with the tenant and that field`, async () => {
      const keys = await indexKeys(table);
      const led = (second: string) => keys.some((k) => k[0] === 'organization_id' && k[1] === second);
      for (const [field, spec] of Object.entries(fields)) {
        const column = snake(field);
        if (spec.filter === 'partial')
          assert.ok(led(`lower(${column}) text_pattern_ops`), `${table}.${field}: prefix index`);
        else if (spec.filter === 'exact' && spec.caseInsensitive)
          assert.ok(led(`lower(${column})`), `${table}.${field}: lower() index`);
        else if (spec.filter) assert.ok(led(column), `${table}.${field}: filter index`);
        if (spec.sortable)
          assert.ok(
            keys.some((k) => k[0] === 'organization_id' && k[1] === column && k.at(-1) === 'id'),
            `${table}.${field}: sort index ending in id`,
          );
      }
    });
  }

  it('when 100,000 members are listed by status and last name at page 40, then rows and count come from indexes', async () => {
    const organization = await buildOrganization();
    await seedMembers(t.db.sequelize, organization.id, 100_000);
    await seedMembers(t.db.sequelize, (await buildOrganization()).id, 5_000); // a neighbour, so the tenant matters
    await t.db.sequelize.query('VACUUM ANALYZE members');
    const { secret } = await buildApiKey(organization.id);
    const sql = new Sql(t.db.sequelize);

    const query = { status: 'active', order: { lastName: 'asc' } };
    const started = performance.now();
    const res = await t.http
      .get('/api/members?status=active&order[lastName]=asc&page=40')
      .set(bearer(secret))
      .expect(200);
    const elapsed = performance.now() - started;
    assert.equal(res.body.pagination.totalItems, 70_000);
    assert.equal(res.body.data.length, 25);
    const lastNames = res.body.data.map((m: { lastName: string }) => m.lastName);
    assert.deepEqual(lastNames, [...lastNames].sort());

    // the statements the service runs for that request
    const actor = {
      type: 'api_key' as const,
      id: 'bench',
      organizationId: organization.id,
      role: 'API_KEY' as const,
      mfaVerified: false,
    };
    const statements = t.container.services.members.listStatements(actor, query, { page: 40, itemsPerPage: 25 });
    const explain = async ({ text, values }: { text: string; values: unknown[] }) => {
      const row = await sql.one<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
      return nodes(row!['QUERY PLAN'][0]!.Plan);
    };
    const rowsPlan = await explain(statements.rows);
    assert.ok(
      rowsPlan.some((n) => /Index/.test(n['Node Type']) && n['Index Name'] === 'members_status_last_name_idx'),
      JSON.stringify(rowsPlan),
    );
    assert.ok(
      !rowsPlan.some((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Seq Scan'),
      'no sort, no sequential scan',
    );
    const countPlan = await explain(statements.count);
    assert.ok(
      countPlan.some((n) => n['Node Type'] === 'Index Only Scan'),
      JSON.stringify(countPlan),
    );
    assert.ok(!countPlan.some((n) => n['Node Type'] === 'Seq Scan'));
    assert.ok(elapsed < 5_000, `answered in ${Math.round(elapsed)} ms`);

    // the same list as CSV: all 70,000 rows, streamed (chunked, no length known up front)
    const csv = await t.http
      .get('/api/members?status=active&order[lastName]=asc')
      .set(bearer(secret))
      .set('Accept', 'text/csv')
      .expect(200);
    assert.equal(csv.headers['transfer-encoding'], 'chunked');
    assert.equal(csv.headers['content-length'], undefined);
    const lines = csv.text.trimEnd().split('\n');
    assert.equal(lines.length, 70_001);
    const names = lines.slice(1, 2_001).map((line) => line.split(',')[2]!);
    assert.deepEqual(names, [...names].sort(), 'in the requested order');
  });
});
