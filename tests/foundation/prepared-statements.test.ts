// Repeated statements (a record by id) are prepared by name on a PostgreSQL server and executed by
// name afterwards (src/shared/sql.ts); never on embedded PGlite, whose pooled connections share one
// session; never beyond a fixed number of texts; and not at all with DATABASE_PREPARED_STATEMENTS=false.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Sequelize } from 'sequelize';
import { loadConfig } from '../../src/config.ts';
import { Sql } from '../../src/shared/sql.ts';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const preparedNames = (sql: Sql) =>
  sql.rows<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'gh\\_%' ORDER BY name");

describe('repeated statements prepared by name', () => {
  let t: TestApp;
  let single: Sequelize;
  before(async () => {
    t = await startTestApp();
    // one connection, so the session that prepares is the session asked
    single = new Sequelize(t.db.url, { dialect: 'postgres', logging: false, pool: { max: 1, min: 0 } });
  });
  after(async () => {
    await single.close();
    await t.close();
  });

  it('when a member is read by id twice, then both answers are the record; the app prepares it by name only on a PostgreSQL server', async () => {
    const admin = await buildUser({ role: 'ROLE_CLIENT_USER' });
    const auth = bearer(await tokenFor(t, admin));
    const created = await t.http
      .post('/api/members')
      .set(auth)
      .send({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@prepared.test' })
      .expect(201);
    const first = await t.http.get(`/api/members/${created.body.id}`).set(auth).expect(200);
    const second = await t.http.get(`/api/members/${created.body.id}`).set(auth).expect(200);
    assert.deepEqual(second.body, first.body);
    assert.equal(first.body.email, 'ada@prepared.test');
    assert.equal(t.container.sql.preparesStatements, t.db.kind === 'postgresql');
  });

  it('when a repeated statement runs on one connection, then it is prepared once under a gh_ name and answers with its values each time', async () => {
    const sql = new Sql(single, { namedStatements: true });
    const text = 'SELECT $1::int + 1 AS n';
    assert.equal((await sql.repeated<{ n: number }>(text, [1]))?.n, 2);
    assert.equal((await sql.repeated<{ n: number }>(text, [41]))?.n, 42);
    const names = await preparedNames(sql);
    assert.equal(names.length, 1);
    assert.match(names[0]!.name, /^gh_[0-9a-f]{24}$/);
  });

  it('when named statements are off, then nothing is prepared and the answers are the same', async () => {
    const before_ = (await preparedNames(new Sql(single))).length;
    const sql = new Sql(single, { namedStatements: false });
    assert.equal((await sql.repeated<{ n: number }>('SELECT $1::int * 2 AS n', [21]))?.n, 42);
    assert.equal((await preparedNames(sql)).length, before_);
    assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements, false);
    assert.equal(loadConfig({}).databasePreparedStatements, true);
  });

  it('when more distinct texts are marked repeated than the fixed limit, then the rest run unnamed (the server keeps at most the limit)', async () => {
    const sql = new Sql(single, { namedStatements: true });
    for (let i = 0; i < 230; i++)
      assert.equal((await sql.repeated<{ n: number }>(`SELECT $1::int - ${i} AS n`, [1]))?.n, 1 - i);
    const names = await preparedNames(sql);
    // 200 from this Sql, plus the one an earlier test prepared on this connection
    assert.equal(names.length, 201);
  });
});
