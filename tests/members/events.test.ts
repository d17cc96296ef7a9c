import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { buildEvent } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { backdate, listIds, sameSet } from './list-helpers.ts';

describe('events', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  const ids: Record<string, string> = {};
  const list = (query: string) => listIds(t, token, '/api/events', query);

  before(async () => {
    t = await startTestApp();
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER' });
    organizationId = staff.organizationId!;
    token = await tokenFor(t, staff);
    const day = (d: string, from: string, to: string) => ({
      startsAt: new Date(`${d}T${from}Z`),
      endsAt: new Date(`${d}T${to}Z`),
    });
    ids.webinar = (
      await buildEvent(organizationId, {
        title: 'Webinar: budgeting',
        status: 'published',
        capacity: 100,
        ...day('2026-03-10', '15:00:00', '16:00:00'),
      })
    ).id;
    ids.congress = (
      await buildEvent(organizationId, {
        title: 'Congress 2026',
        status: 'published',
        capacity: 400,
        ...day('2026-05-20', '08:00:00', '18:00:00'),
      })
    ).id;
    ids.board = (
      await buildEvent(organizationId, {
        title: 'Board meeting',
        status: 'draft',
        capacity: 12,
        ...day('2026-04-01', '09:00:00', '11:00:00'),
      })
    ).id;
    ids.gala = (
      await buildEvent(organizationId, {
        title: 'Gala dinner',
        status: 'cancelled',
        capacity: null,
        ...day('2026-12-12', '19:00:00', '23:00:00'),
      })
    ).id;
    for (const [key, at] of [
      ['webinar', '2025-01-01T00:00:00Z'],
      ['congress', '2025-02-01T00:00:00Z'],
      ['board', '2025-03-01T00:00:00Z'],
      ['gala', '2025-04-01T00:00:00Z'],
    ] as const) {
      await backdate(t.db.sequelize, 'events', ids[key]!, at);
    }
  });
  after(() => t.close());

  it('when filtering status=published, then only published events are listed', async () => {
    sameSet(await list('status=published'), [ids.webinar!, ids.congress!]);
    sameSet(await list('status[]=draft&status[]=cancelled'), [ids.board!, ids.gala!]);
  });

  it('when filtering by a title prefix, then the match ignores case', async () => {
    sameSet(await list('title=con'), [ids.congress!]);
    sameSet(await list('title=WEBINAR:'), [ids.webinar!]);
  });

  it('when filtering start and end times, then every date operator applies', async () => {
    sameSet(await list('startsAt[after]=2026-04-01T09:00:00Z&startsAt[before]=2026-06-01'), [
      ids.board!,
      ids.congress!,
    ]);
    sameSet(
      await list('startsAt[strictly_after]=2026-04-01T09:00:00Z&startsAt[strictly_before]=2026-12-12T19:00:00Z'),
      [ids.congress!],
    );
    sameSet(await list('endsAt[before]=2026-03-10T16:00:00Z'), [ids.webinar!]);
    sameSet(await list('endsAt[strictly_before]=2026-03-10T16:00:00Z'), []);
    sameSet(await list('endsAt[after]=2026-05-20T18:00:00Z'), [ids.congress!, ids.gala!]);
    sameSet(await list('endsAt[strictly_after]=2026-05-20T18:00:00Z'), [ids.gala!]);
    // a bound past the millisecond is kept to the microsecond: 09:00:00.000 is before 09:00:00.0004
    sameSet(await list('startsAt[after]=2026-04-01T09:00:00.0004Z&startsAt[before]=2026-06-01'), [ids.congress!]);
    sameSet(await list('startsAt[after]=2026-04-01&startsAt[strictly_before]=2026-04-01T09:00:00.0004Z'), [ids.board!]);
  });

  it('when filtering capacity, then gt, gte, lt, lte and between apply (an unlimited event has no capacity)', async () => {
    sameSet(await list('capacity[gt]=100'), [ids.congress!]);
    sameSet(await list('capacity[gte]=100'), [ids.webinar!, ids.congress!]);
    sameSet(await list('capacity[lt]=100'), [ids.board!]);
    sameSet(await list('capacity[lte]=100'), [ids.webinar!, ids.board!]);
    sameSet(await list('capacity[between]=12..100'), [ids.webinar!, ids.board!]);
    sameSet(await list('capacity[gte]=13&capacity[lt]=400'), [ids.webinar!]);
    for (const query of [
      'capacity[gte]=ten',
      'capacity[between]=5',
      'capacity[between]=9..1',
      'capacity[after]=3',
      'capacity=5',
    ]) {
      expectProblem(await t.http.get(`/api/events?${query}`).set(bearer(token)), 400, 'invalid_filter');
    }
  });

  it('when filtering creation and update times, then the date operators apply', async () => {
    sameSet(await list('createdAt[after]=2025-02-01&createdAt[strictly_before]=2025-04-01'), [
      ids.congress!,
      ids.board!,
    ]);
    sameSet(await list('updatedAt[before]=2025-01-31'), [ids.webinar!]);
  });

  it('when sorting by each sortable field, then both directions are honoured', async () => {
    const seeded = (query: string) => list(`createdAt[before]=2025-12-31&${query}`);
    assert.deepEqual(await seeded(''), [ids.webinar, ids.board, ids.congress, ids.gala], 'by start time by default');
    assert.deepEqual(await seeded('order[startsAt]=desc'), [ids.gala, ids.congress, ids.board, ids.webinar]);
    assert.deepEqual(await seeded('order[endsAt]=asc'), [ids.webinar, ids.board, ids.congress, ids.gala]);
    assert.deepEqual(await seeded('order[title]=asc'), [ids.board, ids.congress, ids.gala, ids.webinar]);
    assert.deepEqual(
      await seeded('order[capacity]=asc'),
      [ids.board, ids.webinar, ids.congress, ids.gala],
      'no capacity sorts last',
    );
    assert.deepEqual(await seeded('order[createdAt]=desc'), [ids.gala, ids.board, ids.congress, ids.webinar]);
    assert.deepEqual(await seeded('order[updatedAt]=asc'), [ids.webinar, ids.congress, ids.board, ids.gala]);
  });

  it('when an event ends before it starts or names an unknown time zone, then 400 names the field', async () => {
    const backwards = expectProblem(
      await t.http
        .post('/api/events')
        .set(bearer(token))
        .send({ title: 'Oops', startsAt: '2026-05-02T10:00:00Z', endsAt: '2026-05-01T10:00:00Z' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(backwards.errors, [{ field: 'endsAt', message: 'must not be before startsAt' }]);
    const zone = expectProblem(
      await t.http.post('/api/events').set(bearer(token)).send({
        title: 'Oops',
        startsAt: '2026-05-01T10:00:00Z',
        endsAt: '2026-05-01T11:00:00Z',
        timezone: 'Mars/Olympus',
      }),
      400,
      'validation_failed',
    );
    assert.equal(zone.errors[0].field, 'timezone');
    expectProblem(
      await t.http
        .post('/api/events')
        .set(bearer(token))
        .send({ title: 'Oops', startsAt: 'soon', endsAt: '2026-05-01T11:00:00Z' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http.post('/api/events').set(bearer(token)).send({
        title: 'Oops',
        startsAt: '2026-05-01T10:00:00Z',
        endsAt: '2026-05-01T11:00:00Z',
        onlineUrl: 'javascript:alert(1)',
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http
        .post('/api/events')
        .set(bearer(token))
        .send({ title: 'Oops', startsAt: '2026-05-01T10:00:00Z', endsAt: '2026-05-01T11:00:00Z', capacity: -1 }),
      400,
      'validation_failed',
    );
  });

  it('when an event time lands outside years 1 to 9999 in UTC, then POST and PUT are 400 naming the field', async () => {
    const body = { title: 'Far', startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-06-01T01:00:00Z' };
    const existing = await t.http.post('/api/events').set(bearer(token)).send(body).expect(201);
    for (const [field, value] of [
      ['startsAt', '0000-06-01T00:00:00Z'], // PostgreSQL has no year 0
      ['startsAt', '0001-01-01T00:00:00+01:00'], // year 0 once in UTC
      ['endsAt', '9999-12-31T23:59:59.999999999-14:00'], // year 10000 once in UTC
    ] as const) {
      const sent = { ...body, [field]: value, ...(field === 'startsAt' ? { endsAt: '0001-06-01T00:00:00Z' } : {}) };
      for (const res of [
        await t.http.post('/api/events').set(bearer(token)).send(sent),
        await t.http.put(`/api/events/${existing.body.id}`).set(bearer(token)).send(sent),
      ]) {
        const problem = expectProblem(res, 400, 'validation_failed');
        assert.deepEqual(problem.errors, [{ field, message: 'must be between years 1 and 9999 (UTC)' }], value);
      }
    }
    const edges = { ...body, startsAt: '0001-01-01T00:00:00Z', endsAt: '9999-12-31T23:59:59.999Z' };
    const stored = await t.http.post('/api/events').set(bearer(token)).send(edges).expect(201);
    assert.equal(stored.body.startsAt, '0001-01-01T00:00:00.000Z');
    assert.equal(stored.body.endsAt, '9999-12-31T23:59:59.999Z');
  });

  it('when a time filter lands outside years 1 to 9999 in UTC, then 400 invalid_filter names the parameter', async () => {
    for (const [query, parameter] of [
      ['startsAt[before]=9999-12-31T23:59:59-14:00', 'startsAt[before]'],
      ['endsAt[strictly_after]=0001-01-01T00:00:00%2B01:00', 'endsAt[strictly_after]'],
      ['startsAt[after]=0000-06-01T00:00:00Z', 'startsAt[after]'],
    ] as const) {
      const problem = expectProblem(await t.http.get(`/api/events?${query}`).set(bearer(token)), 400, 'invalid_filter');
      assert.deepEqual(problem.errors, [{ field: parameter, message: 'must be between years 1 and 9999 (UTC)' }]);
    }
    sameSet(await list('startsAt[before]=9999-12-31T23:59:59Z&startsAt[after]=0001-01-01&capacity[gte]=400'), [
      ids.congress!,
    ]);
  });

  it('when a number filter is not a plain decimal, then 400 invalid_filter names the parameter', async () => {
    for (const [query, parameter] of [
      ['capacity[gte]=0x10', 'capacity[gte]'],
      ['capacity[gte]=%20', 'capacity[gte]'],
      ['capacity[lt]=1e2', 'capacity[lt]'],
    ] as const) {
      const problem = expectProblem(await t.http.get(`/api/events?${query}`).set(bearer(token)), 400, 'invalid_filter');
      assert.equal(problem.errors[0].field, parameter, query);
    }
    // paging too: `page=0x2` was page 2
    for (const query of ['page=0x2', 'itemsPerPage=%2010', 'page=1.0']) {
      const problem = expectProblem(
        await t.http.get(`/api/events?${query}`).set(bearer(token)),
        400,
        'validation_failed',
      );
      assert.deepEqual(problem.errors, [{ field: query.split('=')[0], message: 'must be a whole number' }], query);
    }
  });

  it('when a time zone is sent in another case, then its canonical IANA name is stored', async () => {
    const times = { startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-06-01T01:00:00Z' };
    const paris = await t.http
      .post('/api/events')
      .set(bearer(token))
      .send({ title: 'Zone', ...times, timezone: 'europe/paris' })
      .expect(201);
    assert.equal(paris.body.timezone, 'Europe/Paris');
    assert.equal(
      (await t.http.get(`/api/events/${paris.body.id}`).set(bearer(token)).expect(200)).body.timezone,
      'Europe/Paris',
    );
    const utc = await t.http
      .put(`/api/events/${paris.body.id}`)
      .set(bearer(token))
      .send({ title: 'Zone', ...times, timezone: 'utc' })
      .expect(200);
    assert.equal(utc.body.timezone, 'UTC');
    const kolkata = await t.http
      .put(`/api/events/${paris.body.id}`)
      .set(bearer(token))
      .send({ title: 'Zone', ...times, timezone: 'Asia/Kolkata' })
      .expect(200);
    assert.equal(kolkata.body.timezone, 'Asia/Kolkata', 'a current name is not swapped for the alias ICU knows');
  });

  it('when an event is published or cancelled with PUT, then its status changes and times keep their instant', async () => {
    const created = await t.http
      .post('/api/events')
      .set(bearer(token))
      .send({
        title: 'Workshop',
        startsAt: '2026-07-01T09:00:00+02:00',
        endsAt: '2026-07-01T12:00:00+02:00',
        timezone: 'Europe/Berlin',
        onlineUrl: 'https://meet.example.test/w',
      })
      .expect(201);
    assert.equal(created.body.status, 'draft');
    assert.equal(created.body.startsAt, '2026-07-01T07:00:00.000Z');
    assert.equal(
      (await t.http.get(`/api/events/${created.body.id}`).set(bearer(token)).expect(200)).body.timezone,
      'Europe/Berlin',
    );
    const published = await t.http
      .put(`/api/events/${created.body.id}`)
      .set(bearer(token))
      .send({
        title: 'Workshop',
        startsAt: created.body.startsAt,
        endsAt: created.body.endsAt,
        timezone: 'Europe/Berlin',
        status: 'published',
      })
      .expect(200);
    assert.equal(published.body.status, 'published');
    assert.equal(published.body.onlineUrl, null, 'left out, so reset');
  });
});
