import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildUser, tokenFor } from '../factories/index.ts';
import { buildCourse } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { backdate, listIds, sameSet } from './list-helpers.ts';

describe('courses', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  const ids: Record<string, string> = {};
  const list = (query: string) => listIds(t, token, '/api/courses', query);

  before(async () => {
    t = await startTestApp();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = admin.organizationId!;
    // the public API's credential: an organization's API key
    token = (await buildApiKey(organizationId)).secret;
    ids.ethics = (
      await buildCourse(organizationId, {
        title: 'Ethics',
        status: 'published',
        level: 'introductory',
        durationMinutes: 60,
        credits: '1.00',
        price: '0.00',
        publishedAt: new Date('2025-01-15T00:00:00Z'),
      })
    ).id;
    ids.finance = (
      await buildCourse(organizationId, {
        title: 'Finance for boards',
        status: 'published',
        level: 'advanced',
        durationMinutes: 240,
        credits: '4.50',
        price: '199.99',
        publishedAt: new Date('2025-06-01T00:00:00Z'),
      })
    ).id;
    ids.fundraising = (
      await buildCourse(organizationId, {
        title: 'Fundraising',
        status: 'draft',
        level: 'intermediate',
        durationMinutes: 120,
        credits: '2.25',
        price: '49.50',
      })
    ).id;
    ids.archive = (
      await buildCourse(organizationId, {
        title: 'Archived law',
        status: 'archived',
        level: 'advanced',
        durationMinutes: null,
        credits: '0.00',
        price: '10.00',
        publishedAt: new Date('2020-01-01T00:00:00Z'),
      })
    ).id;
    for (const [key, at] of [
      ['ethics', '2024-01-01T00:00:00Z'],
      ['finance', '2024-02-01T00:00:00Z'],
      ['fundraising', '2024-03-01T00:00:00Z'],
      ['archive', '2024-04-01T00:00:00Z'],
    ] as const) {
      await backdate(t.db.sequelize, 'courses', ids[key]!, at);
    }
  });
  after(() => t.close());

  it('when filtering by status, level or title prefix, then exactly those courses are listed', async () => {
    sameSet(await list('status=published'), [ids.ethics!, ids.finance!]);
    sameSet(await list('level[]=advanced&level[]=intermediate&status=draft'), [ids.fundraising!]);
    sameSet(await list('level=advanced'), [ids.finance!, ids.archive!]);
    sameSet(await list('title=f'), [ids.finance!, ids.fundraising!]);
    expectProblem(await t.http.get('/api/courses?level=expert').set(bearer(token)), 400, 'invalid_filter');
    // the bracketed list takes as many values as the repeated form (qs stopped at 20)
    const many = Array.from({ length: 30 }, () => 'level[]=advanced').join('&');
    sameSet(await list(many), [ids.finance!, ids.archive!]);
  });

  it('when filtering duration, credits and price, then the numeric range operators apply', async () => {
    sameSet(await list('durationMinutes[gte]=120'), [ids.finance!, ids.fundraising!]);
    sameSet(await list('durationMinutes[lt]=120'), [ids.ethics!]);
    sameSet(await list('credits[gt]=1&credits[lte]=2.25'), [ids.fundraising!]);
    sameSet(await list('credits[between]=1..4.5'), [ids.ethics!, ids.finance!, ids.fundraising!]);
    sameSet(await list('price[lte]=49.5'), [ids.ethics!, ids.fundraising!, ids.archive!]);
    sameSet(await list('price[gt]=49.5'), [ids.finance!]);
    sameSet(await list('price[between]=10..49.50'), [ids.fundraising!, ids.archive!]);
    sameSet(await list('price[gte]=0&price[lt]=10'), [ids.ethics!]);
    expectProblem(await t.http.get('/api/courses?price[between]=10..x').set(bearer(token)), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/courses?credits[gte]=1.5.5').set(bearer(token)), 400, 'invalid_filter');
  });

  it('when a number filter is not a plain decimal, then 400 invalid_filter names the parameter', async () => {
    for (const [query, parameter] of [
      ['price[gte]=%20', 'price[gte]'],
      ['price[gte]=0x10', 'price[gte]'],
      ['price[lt]=1e2', 'price[lt]'],
      ['price[lte]=%2012', 'price[lte]'],
      ['credits[gt]=.5', 'credits[gt]'],
      ['durationMinutes[gte]=0x10', 'durationMinutes[gte]'],
      ['durationMinutes[lte]=60.0', 'durationMinutes[lte]'],
    ] as const) {
      const problem = expectProblem(
        await t.http.get(`/api/courses?${query}`).set(bearer(token)),
        400,
        'invalid_filter',
      );
      assert.equal(problem.errors[0].field, parameter, query);
    }
    sameSet(await list('price[gte]=-1&price[lte]=0.00&credits[gte]=1'), [ids.ethics!]);
    sameSet(await list('durationMinutes[gte]=-5&durationMinutes[lte]=60'), [ids.ethics!]);
  });

  it('when a time filter lands outside years 1 to 9999 in UTC, then 400 invalid_filter names the parameter', async () => {
    const problem = expectProblem(
      await t.http.get('/api/courses?publishedAt[after]=9999-12-31T23:59:59-14:00').set(bearer(token)),
      400,
      'invalid_filter',
    );
    assert.deepEqual(problem.errors, [
      { field: 'publishedAt[after]', message: 'must be between years 1 and 9999 (UTC)' },
    ]);
  });

  it('when filtering publication and creation times, then the date operators apply', async () => {
    sameSet(await list('publishedAt[after]=2025-01-01'), [ids.ethics!, ids.finance!]);
    sameSet(await list('publishedAt[strictly_before]=2025-01-15T00:00:00Z'), [ids.archive!]);
    sameSet(await list('createdAt[after]=2024-02-01&createdAt[before]=2024-03-01'), [ids.finance!, ids.fundraising!]);
    sameSet(await list('updatedAt[strictly_after]=2024-03-01T00:00:00Z&updatedAt[before]=2024-12-31'), [ids.archive!]);
  });

  it('when sorting by each sortable field, then both directions are honoured', async () => {
    const seeded = (query: string) => list(`createdAt[before]=2024-12-31&${query}`);
    assert.deepEqual(await seeded(''), [ids.archive, ids.ethics, ids.finance, ids.fundraising], 'by title by default');
    assert.deepEqual(await seeded('order[title]=desc'), [ids.fundraising, ids.finance, ids.ethics, ids.archive]);
    assert.deepEqual(await seeded('order[price]=desc'), [ids.finance, ids.fundraising, ids.archive, ids.ethics]);
    assert.deepEqual(await seeded('order[credits]=asc&order[title]=asc'), [
      ids.archive,
      ids.ethics,
      ids.fundraising,
      ids.finance,
    ]);
    assert.deepEqual(await seeded('order[durationMinutes]=asc'), [
      ids.ethics,
      ids.fundraising,
      ids.finance,
      ids.archive,
    ]);
    assert.deepEqual(await seeded('order[publishedAt]=asc&publishedAt[after]=2000-01-01'), [
      ids.archive,
      ids.ethics,
      ids.finance,
    ]);
    assert.deepEqual(await seeded('order[createdAt]=desc'), [ids.archive, ids.fundraising, ids.finance, ids.ethics]);
    assert.deepEqual(await seeded('order[updatedAt]=asc'), [ids.ethics, ids.finance, ids.fundraising, ids.archive]);
  });

  it('when a course is first published, then publishedAt is set once and kept through later changes', async () => {
    const draft = await t.http
      .post('/api/courses')
      .set(bearer(token))
      .send({ title: 'New course', price: 25, credits: 0.5 })
      .expect(201);
    assert.equal(draft.body.publishedAt, null);
    assert.equal(draft.body.price, 25);
    const published = await t.http
      .put(`/api/courses/${draft.body.id}`)
      .set(bearer(token))
      .send({ title: 'New course', status: 'published', price: 25 })
      .expect(200);
    assert.equal(published.body.publishedAt, t.clock.now().toISOString());
    t.clock.advance(3600_000);
    const archived = await t.http
      .put(`/api/courses/${draft.body.id}`)
      .set(bearer(token))
      .send({ title: 'New course', status: 'archived', price: 25 })
      .expect(200);
    assert.equal(archived.body.publishedAt, published.body.publishedAt);
    expectProblem(
      await t.http
        .put(`/api/courses/${draft.body.id}`)
        .set(bearer(token))
        .send({ title: 'New course', publishedAt: null }),
      400,
      'read_only_field',
    );
  });

  it('when amounts are sent, then they are kept to the cent and negative ones refused', async () => {
    const created = await t.http
      .post('/api/courses')
      .set(bearer(token))
      .send({ title: 'Cents', price: 10.005, credits: 1.234, currency: 'EUR' })
      .expect(201);
    assert.equal(created.body.currency, 'EUR');
    assert.equal(created.body.credits, 1.23);
    assert.equal(created.body.price, 10.01);
    // rounded as written: 1.005 * 100 is 100.4999... in binary, which rounded it down
    const halfCent = await t.http
      .post('/api/courses')
      .set(bearer(token))
      .send({ title: 'Half cent', price: 1.005, credits: 2.675 })
      .expect(201);
    assert.equal(halfCent.body.price, 1.01);
    assert.equal(halfCent.body.credits, 2.68);
    expectProblem(
      await t.http.post('/api/courses').set(bearer(token)).send({ title: 'Negative', price: -1 }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http.post('/api/courses').set(bearer(token)).send({ title: 'Currency', currency: 'euro' }),
      400,
      'validation_failed',
    );
    // three capitals that name no currency: ISO 4217 as the library's prices are checked
    const unknown = expectProblem(
      await t.http.post('/api/courses').set(bearer(token)).send({ title: 'Currency', currency: 'AAA' }),
      400,
      'validation_failed',
    );
    assert.equal(unknown.errors[0].field, 'currency');
  });

  it('when a PUT changes nothing, then no audit entry or event is written', async () => {
    const created = await t.http.post('/api/courses').set(bearer(token)).send({ title: 'Same', price: 5 }).expect(201);
    const body = { title: 'Same', price: 5 };
    const again = await t.http.put(`/api/courses/${created.body.id}`).set(bearer(token)).send(body).expect(200);
    assert.equal(again.body.updatedAt, created.body.updatedAt);
    const [rows] = await t.db.sequelize.query('SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id', {
      bind: [created.body.id],
    });
    assert.deepEqual(
      (rows as Array<{ action: string }>).map((r) => r.action),
      ['course.created'],
    );
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER', organizationId });
    await t.http
      .get(`/api/courses/${created.body.id}`)
      .set(bearer(await tokenFor(t, staff)))
      .expect(200);
  });
});
