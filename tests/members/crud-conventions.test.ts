// The conventions every CRUD resource shares, checked on members, events and courses alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { buildCourse, buildEvent, buildMember } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

interface ResourceCase {
  name: string;
  path: string;
  table: string;
  body: () => Record<string, unknown>;
  /** A full replacement that changes one field and leaves an optional one out. */
  replacement: Record<string, unknown>;
  /** Field the replacement left out, and the default it must return to. */
  resetField: [string, unknown];
  build: (organizationId: string) => Promise<{ id: string }>;
  csvHeader: string;
  readOnly: string[];
}

let sequence = 0;

/** Times come back normalised to milliseconds (2026-09-01T08:00:00.000Z). */
const normalised = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value).toISOString() : value;

const cases: ResourceCase[] = [
  {
    name: 'members',
    path: '/api/members',
    table: 'members',
    body: () => ({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: `ada${++sequence}@example.test`,
      phone: '+44 20 7946 0000',
      status: 'pending',
      customFields: { chapter: 'London' },
    }),
    replacement: { firstName: 'Augusta', lastName: 'King', email: 'augusta@example.test', status: 'active' },
    resetField: ['phone', null],
    build: (org) => buildMember(org),
    csvHeader:
      'id,firstName,lastName,email,phone,tier,membershipType,status,joinedAt,renewalDate,userId,customFields,createdAt,updatedAt',
    readOnly: ['id', 'organizationId', 'createdAt', 'updatedAt'],
  },
  {
    name: 'events',
    path: '/api/events',
    table: 'events',
    body: () => ({
      title: 'Annual congress',
      startsAt: '2026-09-01T08:00:00Z',
      endsAt: '2026-09-03T17:00:00Z',
      timezone: 'Europe/Paris',
      location: 'Lyon',
      capacity: 400,
      status: 'published',
    }),
    replacement: {
      title: 'Annual congress (moved)',
      startsAt: '2026-10-01T08:00:00Z',
      endsAt: '2026-10-03T17:00:00Z',
      status: 'published',
    },
    resetField: ['location', null],
    build: (org) => buildEvent(org),
    csvHeader: 'id,title,description,startsAt,endsAt,timezone,location,onlineUrl,capacity,status,createdAt,updatedAt',
    readOnly: ['id', 'organizationId', 'createdAt', 'updatedAt'],
  },
  {
    name: 'courses',
    path: '/api/courses',
    table: 'courses',
    body: () => ({
      title: 'Governance basics',
      description: 'Boards and bylaws',
      level: 'intermediate',
      durationMinutes: 90,
      credits: 1.5,
      price: 49.99,
    }),
    replacement: { title: 'Governance basics, 2nd edition', level: 'intermediate', durationMinutes: 120 },
    resetField: ['price', 0],
    build: (org) => buildCourse(org),
    csvHeader:
      'id,title,description,status,level,durationMinutes,credits,price,currency,publishedAt,createdAt,updatedAt',
    readOnly: ['id', 'organizationId', 'publishedAt', 'createdAt', 'updatedAt'],
  },
];

describe('CRUD conventions (members, events, courses)', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  let otherToken: string;
  let otherOrganizationId: string;

  before(async () => {
    t = await startTestApp();
    const staff = await buildUser({ role: 'ROLE_CLIENT_USER' });
    organizationId = staff.organizationId!;
    token = await tokenFor(t, staff);
    const other = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    otherOrganizationId = other.organizationId!;
    otherToken = await tokenFor(t, other);
  });
  after(() => t.close());

  for (const r of cases) {
    describe(r.name, () => {
      it(`when ${r.name} are created, then 201 answers the stored record with its Location and GET returns it`, async () => {
        const body = r.body();
        const created = await t.http.post(r.path).set(bearer(token)).send(body).expect(201);
        assert.equal(created.headers.location, `${r.path}/${created.body.id}`);
        assert.match(created.body.id, /^[0-9a-f-]{36}$/);
        assert.equal(created.body.organizationId, organizationId);
        for (const [key, value] of Object.entries(body)) assert.deepEqual(created.body[key], normalised(value), key);
        assert.match(created.body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        const fetched = await t.http.get(created.headers.location).set(bearer(token)).expect(200);
        assert.deepEqual(fetched.body, created.body);
        const audit = await AuditEntry.findAll({ where: { targetId: created.body.id } });
        assert.deepEqual(
          audit.map((a) => a.action),
          [`${r.name.slice(0, -1)}.created`],
        );
      });

      it(`when one of the ${r.name} is replaced, then every writable field is replaced and left-out ones return to their defaults`, async () => {
        const created = await t.http.post(r.path).set(bearer(token)).send(r.body()).expect(201);
        const replaced = await t.http
          .put(`${r.path}/${created.body.id}`)
          .set(bearer(token))
          .send(r.replacement)
          .expect(200);
        for (const [key, value] of Object.entries(r.replacement))
          assert.deepEqual(replaced.body[key], normalised(value), key);
        assert.deepEqual(replaced.body[r.resetField[0]], r.resetField[1]);
        assert.equal(replaced.body.createdAt, created.body.createdAt);
        assert.ok(replaced.body.updatedAt >= created.body.updatedAt);
        assert.deepEqual(
          (await t.http.get(`${r.path}/${created.body.id}`).set(bearer(token)).expect(200)).body,
          replaced.body,
        );
      });

      it(`when one of the ${r.name} is deleted, then 204, and reading or deleting it again is 404`, async () => {
        const { id } = await r.build(organizationId);
        await t.http.delete(`${r.path}/${id}`).set(bearer(token)).expect(204);
        expectProblem(await t.http.get(`${r.path}/${id}`).set(bearer(token)), 404, 'not_found');
        expectProblem(await t.http.delete(`${r.path}/${id}`).set(bearer(token)), 404, 'not_found');
        expectProblem(await t.http.put(`${r.path}/${id}`).set(bearer(token)).send(r.replacement), 404, 'not_found');
      });

      it(`when a body for ${r.name} carries read-only fields, then it is refused with read_only_field and nothing changes`, async () => {
        const refusedCreate = expectProblem(
          await t.http
            .post(r.path)
            .set(bearer(token))
            .send({ ...r.body(), id: '00000000-0000-4000-8000-000000000000', organizationId: otherOrganizationId }),
          400,
          'read_only_field',
        );
        assert.ok(refusedCreate.errors.length > 0);
        for (const e of refusedCreate.errors) assert.ok(['id', 'organizationId'].includes(e.field), e.field);
        const { id } = await r.build(organizationId);
        const before = (await t.http.get(`${r.path}/${id}`).set(bearer(token)).expect(200)).body;
        for (const field of r.readOnly) {
          const refused = expectProblem(
            await t.http
              .put(`${r.path}/${id}`)
              .set(bearer(token))
              .send({ ...r.replacement, [field]: '2020-01-01T00:00:00.000Z' }),
            400,
            'read_only_field',
          );
          assert.deepEqual(refused.errors, [{ field, message: 'is read-only' }]);
        }
        assert.deepEqual((await t.http.get(`${r.path}/${id}`).set(bearer(token)).expect(200)).body, before);
        const unknown = expectProblem(
          await t.http
            .post(r.path)
            .set(bearer(token))
            .send({ ...r.body(), isAdmin: true }),
          400,
          'validation_failed',
        );
        assert.match(unknown.detail, /isAdmin|field/);
      });

      it(`when another organization reads, replaces or deletes one of the ${r.name}, then it is 404 and the record is untouched`, async () => {
        const { id } = await r.build(organizationId);
        const before = (await t.http.get(`${r.path}/${id}`).set(bearer(token)).expect(200)).body;
        expectProblem(await t.http.get(`${r.path}/${id}`).set(bearer(otherToken)), 404, 'not_found');
        expectProblem(
          await t.http.put(`${r.path}/${id}`).set(bearer(otherToken)).send(r.replacement),
          404,
          'not_found',
        );
        expectProblem(await t.http.delete(`${r.path}/${id}`).set(bearer(otherToken)), 404, 'not_found');
        assert.deepEqual((await t.http.get(`${r.path}/${id}`).set(bearer(token)).expect(200)).body, before);
        const theirs = await t.http.get(r.path).set(bearer(otherToken)).expect(200);
        assert.ok(!theirs.body.data.some((item: { id: string }) => item.id === id));
        const csv = await t.http.get(r.path).set(bearer(otherToken)).set('Accept', 'text/csv').expect(200);
        assert.ok(!csv.text.includes(id));
      });

      it(`when the ${r.name} list is paged, then the envelope, the default of 25 and the Link header describe it`, async () => {
        const org = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
        const orgToken = await tokenFor(t, org);
        for (let i = 0; i < 27; i++) await r.build(org.organizationId!);
        const first = await t.http.get(r.path).set(bearer(orgToken)).expect(200);
        assert.deepEqual(first.body.pagination, { page: 1, itemsPerPage: 25, totalItems: 27, totalPages: 2 });
        assert.equal(first.body.data.length, 25);
        const second = await t.http.get(`${r.path}?page=2`).set(bearer(orgToken)).expect(200);
        assert.equal(second.body.data.length, 2);
        assert.match(second.headers.link, /page=1&itemsPerPage=25>; rel="prev"/);
        const all = [...first.body.data, ...second.body.data].map((item: { id: string }) => item.id);
        assert.equal(new Set(all).size, 27, 'pages do not overlap');
        expectProblem(await t.http.get(`${r.path}?itemsPerPage=101`).set(bearer(orgToken)), 400, 'validation_failed');
        expectProblem(await t.http.get(`${r.path}?page=0`).set(bearer(orgToken)), 400, 'validation_failed');
      });

      it(`when the ${r.name} list gets an unknown filter, a bad operator, a malformed value or a bad sort, then 400 invalid_filter names the parameter`, async () => {
        const refusals: Array<[string, string]> = [
          ['nickname=x', 'nickname'],
          ['createdAt[since]=2026-01-01', 'createdAt[since]'],
          ['createdAt[after]=tomorrow', 'createdAt[after]'],
          ['createdAt=2026-01-01', 'createdAt'],
          ['status=nonsense', 'status'],
          ['order[id]=asc', 'order[id]'],
          ['order[createdAt]=sideways', 'order[createdAt]'],
        ];
        for (const [query, parameter] of refusals) {
          const problem = expectProblem(
            await t.http.get(`${r.path}?${query}`).set(bearer(token)),
            400,
            'invalid_filter',
          );
          assert.ok(
            problem.errors.some((e: { field: string }) => e.field === parameter),
            `${query}: ${JSON.stringify(problem.errors)}`,
          );
          assert.match(problem.detail, new RegExp(parameter.replace(/[[\]]/g, '\\$&')));
        }
      });

      it(`when the ${r.name} list is asked for as CSV, then every matching record streams with a header row`, async () => {
        const org = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
        const orgToken = await tokenFor(t, org);
        const ids = [];
        for (let i = 0; i < 30; i++) ids.push((await r.build(org.organizationId!)).id);
        const res = await t.http
          .get(`${r.path}?itemsPerPage=5`)
          .set(bearer(orgToken))
          .set('Accept', 'text/csv')
          .expect(200);
        assert.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
        assert.match(res.headers['content-disposition'], new RegExp(`attachment; filename="?${r.name}.csv"?`));
        const lines = res.text.trim().split('\r\n');
        assert.equal(lines[0], r.csvHeader);
        assert.equal(lines.length, 31, 'every page, not just the first');
        for (const id of ids) assert.ok(res.text.includes(id));
      });

      it(`when a POST to ${r.name} repeats an Idempotency-Key, then the first response answers again, and a different body is 422`, async () => {
        const body = r.body();
        const key = `create-${r.name}-${Date.now()}`;
        const first = await t.http.post(r.path).set(bearer(token)).set('Idempotency-Key', key).send(body).expect(201);
        const again = await t.http.post(r.path).set(bearer(token)).set('Idempotency-Key', key).send(body).expect(201);
        assert.deepEqual(again.body, first.body);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.headers.location, first.headers.location);
        const [rows] = await t.db.sequelize.query(`SELECT count(*)::int AS n FROM ${r.table} WHERE id = $1`, {
          bind: [first.body.id],
        });
        assert.equal((rows as Array<{ n: number }>)[0]!.n, 1);
        expectProblem(
          await t.http
            .post(r.path)
            .set(bearer(token))
            .set('Idempotency-Key', key)
            .send({ ...body, [Object.keys(body)[0]!]: 'Changed' }),
          422,
          'idempotency_key_reused',
        );
        // the key belongs to this credential: another organization's request with it is its own
        await t.http.post(r.path).set(bearer(otherToken)).set('Idempotency-Key', key).send(r.body()).expect(201);
      });
    });
  }

  it("when a refused POST is replayed with its Idempotency-Key, then the problem names this request's id, as its header does", async () => {
    const body = { firstName: 'Dup', lastName: 'Licate', email: `dup${Date.now()}@example.test` };
    await t.http.post('/api/members').set(bearer(token)).send(body).expect(201);
    const send = () => t.http.post('/api/members').set(bearer(token)).set('Idempotency-Key', 'dup-replay').send(body);
    const first = expectProblem(await send(), 409, 'already_exists');
    const again = await send();
    expectProblem(again, 409, 'already_exists');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.requestId, again.headers['x-request-id']);
    assert.notEqual(again.body.requestId, first.requestId);
  });

  it('when a member of the association (ROLE_MEMBER) uses the API, then it may read events and courses but not members, and write nothing', async () => {
    const member = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    const memberToken = await tokenFor(t, member);
    await t.http.get('/api/events').set(bearer(memberToken)).expect(200);
    await t.http.get('/api/courses').set(bearer(memberToken)).expect(200);
    expectProblem(await t.http.get('/api/members').set(bearer(memberToken)), 403, 'forbidden');
    expectProblem(await t.http.post('/api/events').set(bearer(memberToken)).send(cases[1]!.body()), 403, 'forbidden');
    expectProblem(await t.http.post('/api/courses').set(bearer(memberToken)).send(cases[2]!.body()), 403, 'forbidden');
    expectProblem(await t.http.get('/api/members'), 401, 'unauthenticated');
  });

  it('when a platform admin names no organization, then the tenant-bound list is refused; naming one works', async () => {
    const admin = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const adminToken = await tokenFor(t, admin);
    expectProblem(await t.http.get('/api/members').set(bearer(adminToken)), 422, 'unprocessable');
    await t.http.get('/api/members').set(bearer(adminToken)).set('Guildhall-Organization', organizationId).expect(200);
  });
});
