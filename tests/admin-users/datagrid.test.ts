import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('Admin users datagrid (GET /api/admin/users)', () => {
  let t: TestApp;
  let token: string;
  let orgA: string;
  let orgB: string;
  const day = (iso: string) => new Date(`${iso}T12:00:00.000Z`);

  before(async () => {
    t = await startTestApp();
    ({ token } = await buildAdmin(t, { firstName: 'Zed', lastName: 'Admin', email: 'zed.admin@grid.test' }));
    orgA = (await buildOrganization({ name: 'Alpha Association' })).id;
    orgB = (await buildOrganization({ name: 'Beta Guild' })).id;
    const people = [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@grid.test',
        role: 'ROLE_CLIENT_ADMIN',
        organizationId: orgA,
        status: 'active',
        createdAt: day('2020-01-10'),
        lastLoginAt: day('2020-03-01'),
      },
      {
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'grace@grid.test',
        role: 'ROLE_MEMBER',
        organizationId: orgA,
        status: 'suspended',
        createdAt: day('2020-02-10'),
        lastLoginAt: null,
      },
      {
        firstName: 'Alan',
        lastName: 'Turing',
        email: 'alan@other.test',
        role: 'ROLE_SPONSOR_USER',
        organizationId: orgB,
        status: 'inactive',
        createdAt: day('2020-03-10'),
        lastLoginAt: day('2020-04-01'),
      },
      {
        firstName: 'Edsger',
        lastName: 'Dijkstra',
        email: 'edsger@other.test',
        role: 'ROLE_SPONSOR_ADMIN',
        organizationId: orgB,
        status: 'pending',
        createdAt: day('2020-04-10'),
        lastLoginAt: day('2020-01-15'),
      },
    ] as const;
    for (const person of people) {
      const user = await buildUser({ ...person });
      await User.update(
        { createdAt: person.createdAt, lastLoginAt: person.lastLoginAt },
        { where: { id: user.id }, silent: true },
      );
    }
  });
  after(() => t.close());

  const list = (query: string) => t.http.get(`/api/admin/users${query}`).set(bearer(token));
  const emails = (res: { body: { data: Array<{ email: string }> } }) => res.body.data.map((u) => u.email);

  it('when listed without parameters, then the columns are there, newest first, 25 per page', async () => {
    const res = await list('?email=grid.test').expect(200);
    assert.equal(res.body.pagination.itemsPerPage, 25);
    const ada = res.body.data.find((u: { email: string }) => u.email === 'ada@grid.test');
    assert.equal(ada.name, 'Ada Lovelace');
    assert.equal(ada.role, 'ROLE_CLIENT_ADMIN');
    assert.deepEqual(ada.organization, { id: orgA, name: 'Alpha Association' });
    assert.equal(ada.status, 'active');
    assert.equal(ada.lastLoginAt, '2020-03-01T12:00:00.000Z');
    assert.equal(ada.createdAt, '2020-01-10T12:00:00.000Z');
    const all = await list('').expect(200);
    const created = all.body.data.map((u: { createdAt: string }) => u.createdAt);
    assert.deepEqual(created, [...created].sort().reverse(), 'default order: created, newest first');
  });

  it('when 30 users exist, then the first page holds 25 and the second the rest', async () => {
    const org = await buildOrganization();
    for (let i = 0; i < 30; i++)
      await buildUser({ organizationId: org.id, role: 'ROLE_MEMBER', email: `bulk-${i}@paging.test` });
    const first = await list(`?organizationId=${org.id}`).expect(200);
    assert.equal(first.body.data.length, 25);
    assert.deepEqual(first.body.pagination, { page: 1, itemsPerPage: 25, totalItems: 30, totalPages: 2 });
    const second = await list(`?organizationId=${org.id}&page=2`).expect(200);
    assert.equal(second.body.data.length, 5);
    assert.match(second.headers.link, /rel="prev"/);
  });

  it('when filtering by partial name and email, then matches are case-insensitive and literal', async () => {
    assert.deepEqual(emails(await list('?name=ADA%20love').expect(200)), ['ada@grid.test']);
    assert.deepEqual(emails(await list('?email=OTHER.test&order[email]=asc').expect(200)), [
      'alan@other.test',
      'edsger@other.test',
    ]);
    assert.deepEqual(emails(await list('?name=%25').expect(200)), [], '% is a literal character, not a wildcard');
    // `+` may go unencoded (the contract's allowReserved): form decoding's space is read back as `+`
    await buildUser({ email: 'grace+tag@grid.test' });
    assert.deepEqual(emails(await list('?email=grace+tag').expect(200)), ['grace+tag@grid.test']);
  });

  it('when filtering by role, organization and status, then only exact matches are listed', async () => {
    assert.deepEqual(emails(await list('?role=ROLE_SPONSOR_USER,ROLE_SPONSOR_ADMIN&order[name]=asc').expect(200)), [
      'alan@other.test',
      'edsger@other.test',
    ]);
    assert.deepEqual(emails(await list(`?organizationId=${orgA}&status=suspended`).expect(200)), ['grace@grid.test']);
    assert.deepEqual(
      emails(await list(`?organizationId=${orgB}&status=inactive,pending&order[status]=asc`).expect(200)),
      ['alan@other.test', 'edsger@other.test'],
    );
  });

  it('when filtering by last login and created date ranges, then the bounds are inclusive whole days', async () => {
    assert.deepEqual(
      emails(await list('?createdAt[after]=2020-02-10&createdAt[before]=2020-03-10&order[createdAt]=asc').expect(200)),
      ['grace@grid.test', 'alan@other.test'],
    );
    assert.deepEqual(emails(await list('?lastLoginAt[before]=2020-03-01&order[lastLoginAt]=asc').expect(200)), [
      'edsger@other.test',
      'ada@grid.test',
    ]);
    assert.deepEqual(
      emails(await list('?lastLoginAt[after]=2020-03-15T00:00:00Z&lastLoginAt[before]=2020-12-31').expect(200)),
      ['alan@other.test'],
    );
  });

  it('when sorting by each column, then the order follows it (missing last logins last)', async () => {
    const by = async (column: string, direction: string) =>
      emails(await list(`?order[${column}]=${direction}&createdAt[before]=2020-12-31`).expect(200));
    assert.deepEqual(await by('name', 'asc'), [
      'ada@grid.test',
      'alan@other.test',
      'edsger@other.test',
      'grace@grid.test',
    ]);
    assert.deepEqual(await by('name', 'desc'), [
      'grace@grid.test',
      'edsger@other.test',
      'alan@other.test',
      'ada@grid.test',
    ]);
    assert.deepEqual(await by('email', 'asc'), [
      'ada@grid.test',
      'alan@other.test',
      'edsger@other.test',
      'grace@grid.test',
    ]);
    assert.deepEqual(await by('role', 'asc'), [
      'ada@grid.test',
      'grace@grid.test',
      'edsger@other.test',
      'alan@other.test',
    ]);
    assert.deepEqual((await by('organization', 'desc')).slice(0, 2).sort(), ['alan@other.test', 'edsger@other.test']);
    assert.deepEqual(await by('status', 'asc'), [
      'ada@grid.test',
      'alan@other.test',
      'edsger@other.test',
      'grace@grid.test',
    ]);
    assert.deepEqual(await by('lastLoginAt', 'desc'), [
      'alan@other.test',
      'ada@grid.test',
      'edsger@other.test',
      'grace@grid.test',
    ]);
    assert.deepEqual(await by('createdAt', 'asc'), [
      'ada@grid.test',
      'grace@grid.test',
      'alan@other.test',
      'edsger@other.test',
    ]);
  });

  it('when a filter or sort is malformed, then it is a 400 naming it', async () => {
    // every list answers a bad filter or sort alike: invalid_filter, naming the parameter as sent
    assert.equal(expectProblem(await list('?role=ROLE_KING'), 400, 'invalid_filter').errors[0].field, 'role');
    assert.equal(
      expectProblem(await list('?order[password]=asc'), 400, 'invalid_filter').errors[0].field,
      'order[password]',
    );
    assert.equal(
      expectProblem(await list('?createdAt[after]=yesterday'), 400, 'invalid_filter').errors[0].field,
      'createdAt[after]',
    );
    expectProblem(await list('?createdAt[after]=2020-02-01&createdAt[before]=2020-01-01'), 400, 'invalid_filter');
    // days that are not on the calendar were rolled over (November 31st read as December 1st)
    for (const day of ['2026-11-31', '2026-02-30', '2026-02-29T10:00:00Z']) {
      const refused = expectProblem(await list(`?createdAt[before]=${day}`), 400, 'invalid_filter');
      assert.equal(refused.errors[0].field, 'createdAt[before]', day);
    }
    await list('?createdAt[before]=2028-02-29').expect(200);
    assert.match(
      expectProblem(await list('?lastLoginAt[after]=9999-12-31T23:59:59-14:00'), 400, 'invalid_filter').errors[0]
        .message,
      /between years 1 and 9999/,
    );
    expectProblem(await list('?colour=red'), 400, 'invalid_filter');
  });

  it('when the caller is not a platform admin, then it is 403; without a token 401', async () => {
    const clientAdmin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    expectProblem(await t.http.get('/api/admin/users').set(bearer(await tokenFor(t, clientAdmin))), 403, 'forbidden');
    expectProblem(await t.http.get('/api/admin/users'), 401, 'unauthenticated');
  });
});
