import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { backdate, listIds, sameSet } from './list-helpers.ts';

describe('members', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;
  const ids: Record<string, string> = {};
  const list = (query: string) => listIds(t, token, '/api/members', query);

  before(async () => {
    t = await startTestApp();
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = admin.organizationId!;
    token = await tokenFor(t, admin);
    const rows: Array<[string, Parameters<typeof buildMember>[1], string]> = [
      [
        'smith',
        {
          firstName: 'Anna',
          lastName: 'Smith',
          email: 'Anna.Smith@example.test',
          status: 'active',
          tier: 'premium',
          membershipType: 'Individual',
          joinedAt: '2019-03-01',
          renewalDate: '2026-03-01',
        },
        '2024-01-10T10:00:00Z',
      ],
      [
        'smithers',
        {
          firstName: 'Bob',
          lastName: 'Smithers',
          email: 'bob@example.test',
          status: 'lapsed',
          membershipType: 'Student',
          joinedAt: '2021-06-15',
          renewalDate: '2025-06-15',
        },
        '2024-02-10T10:00:00Z',
      ],
      [
        'osmith',
        {
          firstName: 'Carla',
          lastName: 'Osmith',
          email: 'carla@example.test',
          status: 'pending',
          membershipType: 'Corporate',
          joinedAt: '2023-01-01',
          renewalDate: null,
        },
        '2024-03-10T10:00:00Z',
      ],
      [
        'underscore',
        {
          firstName: 'Dan',
          lastName: 'Sm_th',
          email: 'dan@example.test',
          status: 'cancelled',
          joinedAt: null,
          renewalDate: '2027-01-01',
        },
        '2024-04-10T10:00:00Z',
      ],
    ];
    for (const [key, overrides, createdAt] of rows) {
      ids[key] = (await buildMember(organizationId, overrides)).id;
      await backdate(t.db.sequelize, 'members', ids[key]!, createdAt);
    }
    await t.db.sequelize.query(`UPDATE members SET updated_at = '2025-05-05T00:00:00Z' WHERE id = $1`, {
      bind: [ids.osmith],
    });
  });
  after(() => t.close());

  it('when filtering by e-mail, then the match ignores case and takes several values', async () => {
    sameSet(await list('email=anna.smith@EXAMPLE.test'), [ids.smith!]);
    sameSet(await list('email[]=anna.smith@example.test&email[]=BOB@example.test'), [ids.smith!, ids.smithers!]);
    sameSet(await list('email=nobody@example.test'), []);
    // the contract lets `+` go unencoded (allowReserved): form decoding's space is read back as `+`
    const tagged = await buildMember(organizationId, { email: 'ann+tag@example.test' });
    sameSet(await list('email=ann+tag@example.test'), [tagged.id]);
    sameSet(await list('email=ann%2Btag@example.test'), [tagged.id]);
    await t.http.delete(`/api/members/${tagged.id}`).set(bearer(token)).expect(204);
  });

  it('when filtering by status, tier or membership type, then one value or several select exactly', async () => {
    sameSet(await list('status=active'), [ids.smith!]);
    sameSet(await list('status[]=lapsed&status[]=pending'), [ids.smithers!, ids.osmith!]);
    sameSet(await list('status=lapsed&status=cancelled'), [ids.smithers!, ids.underscore!]);
    sameSet(await list('tier=premium'), [ids.smith!]);
    sameSet(await list('tier=member&status=lapsed'), [ids.smithers!]);
    sameSet(await list('membershipType=Student'), [ids.smithers!]);
    sameSet(await list('membershipType[]=Student&membershipType[]=Corporate'), [ids.smithers!, ids.osmith!]);
  });

  it('when filtering by a name, then it matches a case-insensitive prefix and wildcards are literal', async () => {
    sameSet(await list('lastName=smi'), [ids.smith!, ids.smithers!]);
    sameSet(await list('lastName=SMITHE'), [ids.smithers!]);
    sameSet(await list('lastName=sm_'), [ids.underscore!], '_ is a character, not a wildcard');
    sameSet(await list('lastName=%25'), []);
    sameSet(await list('firstName=an'), [ids.smith!]);
    sameSet(await list('firstName=c&lastName=os'), [ids.osmith!]);
  });

  it('when filtering by a linked user, then only that member is listed', async () => {
    const user = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    const linked = await buildMember(organizationId, { userId: user.id });
    sameSet(await list(`userId=${user.id}`), [linked.id]);
    expectProblem(await t.http.get('/api/members?userId=42').set(bearer(token)), 400, 'invalid_filter');
  });

  it('when filtering calendar dates, then after/before include the day and strictly_* exclude it', async () => {
    sameSet(await list('joinedAt[after]=2021-06-15&joinedAt[before]=2023-12-31'), [ids.smithers!, ids.osmith!]);
    sameSet(await list('joinedAt[strictly_after]=2021-06-15&joinedAt[before]=2023-12-31'), [ids.osmith!]);
    sameSet(await list('joinedAt[before]=2021-06-15'), [ids.smith!, ids.smithers!]);
    sameSet(await list('joinedAt[strictly_before]=2021-06-15'), [ids.smith!]);
    sameSet(await list('renewalDate[after]=2026-01-01&renewalDate[before]=2026-12-31'), [ids.smith!]);
    expectProblem(
      await t.http.get('/api/members?joinedAt[after]=2021-13-01').set(bearer(token)),
      400,
      'invalid_filter',
    );
    expectProblem(
      await t.http.get('/api/members?renewalDate[gt]=2021-01-01').set(bearer(token)),
      400,
      'invalid_filter',
    );
  });

  it('when filtering timestamps, then every date operator works with dates and date-times', async () => {
    // the upper bound leaves out members other tests create now
    sameSet(await list('createdAt[after]=2024-02-10T10:00:00Z&createdAt[before]=2024-12-31'), [
      ids.smithers!,
      ids.osmith!,
      ids.underscore!,
    ]);
    sameSet(await list('createdAt[strictly_after]=2024-02-10T10:00:00Z&createdAt[before]=2024-12-31'), [
      ids.osmith!,
      ids.underscore!,
    ]);
    sameSet(await list('createdAt[before]=2024-02-10T10:00:00Z'), [ids.smith!, ids.smithers!]);
    sameSet(await list('createdAt[strictly_before]=2024-02-10T10:00:00Z'), [ids.smith!]);
    sameSet(await list('createdAt[after]=2024-02-01&createdAt[strictly_before]=2024-03-10T12:00:01%2B02:00'), [
      ids.smithers!,
      ids.osmith!,
    ]);
    // an offset's `+` sent unencoded (curl, a hand-written URL) arrives as a space: read back as `+`
    sameSet(await list('createdAt[after]=2024-02-01&createdAt[strictly_before]=2024-03-10T12:00:01+02:00'), [
      ids.smithers!,
      ids.osmith!,
    ]);
    sameSet(await list('updatedAt[after]=2025-01-01&updatedAt[before]=2025-12-31'), [ids.osmith!]);
  });

  it('when a timestamp filter lands outside years 1 to 9999 in UTC, then 400 invalid_filter names the parameter', async () => {
    for (const [query, parameter] of [
      ['createdAt[after]=9999-12-31T23:59:59-14:00', 'createdAt[after]'],
      ['updatedAt[before]=0001-01-01T00:30:00%2B01:00', 'updatedAt[before]'],
    ] as const) {
      const problem = expectProblem(
        await t.http.get(`/api/members?${query}`).set(bearer(token)),
        400,
        'invalid_filter',
      );
      assert.deepEqual(problem.errors, [{ field: parameter, message: 'must be between years 1 and 9999 (UTC)' }]);
    }
    sameSet(await list('createdAt[strictly_before]=0001-01-01T00:00:01Z'), []);
  });

  it('when sorting by any sortable field, then the order follows it in both directions', async () => {
    const seeded = (query: string) => list(`createdAt[before]=2024-12-31&${query}`); // only the four seeded members
    assert.deepEqual(await seeded('order[lastName]=asc'), [ids.osmith, ids.underscore, ids.smith, ids.smithers]);
    assert.deepEqual(await seeded('order[lastName]=desc'), [ids.smithers, ids.smith, ids.underscore, ids.osmith]);
    assert.deepEqual(await seeded('order[firstName]=desc'), [ids.underscore, ids.osmith, ids.smithers, ids.smith]);
    assert.deepEqual(await seeded('order[createdAt]=desc'), [ids.underscore, ids.osmith, ids.smithers, ids.smith]);
    assert.deepEqual(await seeded('order[updatedAt]=asc'), [ids.smith, ids.smithers, ids.underscore, ids.osmith]);
    assert.deepEqual(await seeded('order[joinedAt]=asc&joinedAt[after]=2000-01-01'), [
      ids.smith,
      ids.smithers,
      ids.osmith,
    ]);
    assert.deepEqual(await seeded('order[renewalDate]=desc&renewalDate[after]=2000-01-01'), [
      ids.underscore,
      ids.smith,
      ids.smithers,
    ]);
    assert.deepEqual(await seeded('status[]=active&status[]=lapsed&order[joinedAt]=desc&order[lastName]=asc'), [
      ids.smithers,
      ids.smith,
    ]);
  });

  it('when no order is given, then members come by last name, then first name', async () => {
    const org = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const orgToken = await tokenFor(t, org);
    const b = await buildMember(org.organizationId!, { lastName: 'Lee', firstName: 'Bo' });
    const a = await buildMember(org.organizationId!, { lastName: 'Lee', firstName: 'Al' });
    const c = await buildMember(org.organizationId!, { lastName: 'Kim', firstName: 'Zed' });
    assert.deepEqual(await listIds(t, orgToken, '/api/members', ''), [c.id, a.id, b.id]);
  });

  it('when an e-mail is already used in the organization (in any case), then 409 names the field; another organization may use it', async () => {
    const problem = expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'X', lastName: 'Y', email: 'ANNA.SMITH@example.test' }),
      409,
      'already_exists',
    );
    assert.deepEqual(problem.errors, [{ field: 'email', message: 'must be unique within the organization' }]);
    const moving = await buildMember(organizationId);
    expectProblem(
      await t.http
        .put(`/api/members/${moving.id}`)
        .set(bearer(token))
        .send({ firstName: 'X', lastName: 'Y', email: 'bob@example.test' }),
      409,
      'already_exists',
    );
    const other = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    await t.http
      .post('/api/members')
      .set(bearer(await tokenFor(t, other)))
      .send({ firstName: 'X', lastName: 'Y', email: 'anna.smith@example.test' })
      .expect(201);
  });

  it('when a member is linked to a user, then the user must be of the organization and linked once', async () => {
    const user = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    const created = await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'Linked', lastName: 'User', email: 'linked@example.test', userId: user.id })
      .expect(201);
    assert.equal(created.body.userId, user.id);
    expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'Twice', lastName: 'User', email: 'twice@example.test', userId: user.id }),
      409,
      'already_exists',
    );
    const stranger = await buildUser({ role: 'ROLE_MEMBER' });
    const problem = expectProblem(
      await t.http
        .post('/api/members')
        .set(bearer(token))
        .send({ firstName: 'S', lastName: 'T', email: 'st@example.test', userId: stranger.id }),
      400,
      'validation_failed',
    );
    assert.equal(problem.errors[0].field, 'userId');
  });

  it('when a body is malformed, then 400 names each field', async () => {
    const missing = expectProblem(
      await t.http.post('/api/members').set(bearer(token)).send({ firstName: 'Only' }),
      400,
      'validation_failed',
    );
    assert.ok(missing.errors.some((e: { field: string }) => e.field === 'lastName' || e.field === 'email'));
    for (const bad of [
      { email: 'not-an-email' },
      { status: 'dormant' },
      { tier: 'gold' },
      { joinedAt: '2024-02-30' },
      { renewalDate: '0000-01-01' }, // PostgreSQL has no year 0
      { phone: 'call me' },
      { customFields: [] },
    ]) {
      expectProblem(
        await t.http
          .post('/api/members')
          .set(bearer(token))
          .send({ firstName: 'A', lastName: 'B', email: 'ab@example.test', ...bad }),
        400,
        'validation_failed',
      );
    }
  });

  it('when custom fields are stored, then they come back as the same JSON', async () => {
    const customFields = { chapter: 'North', boardMember: true, committees: ['finance', 'events'], since: 2019 };
    const created = await t.http
      .post('/api/members')
      .set(bearer(token))
      .send({ firstName: 'C', lastName: 'F', email: 'cf@example.test', customFields })
      .expect(201);
    assert.deepEqual(
      (await t.http.get(`/api/members/${created.body.id}`).set(bearer(token)).expect(200)).body.customFields,
      customFields,
    );
  });

  it('when members are exported, then formula-leading cells are neutralised and the filters apply', async () => {
    const org = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    const orgToken = await tokenFor(t, org);
    await buildMember(org.organizationId!, {
      firstName: '=HYPERLINK("http://evil.test")',
      lastName: 'Hacker',
      email: 'h@example.test',
      status: 'active',
      customFields: { note: 'a, "quoted" value' },
    });
    await buildMember(org.organizationId!, {
      firstName: '+1',
      lastName: '@Sum',
      email: 'p@example.test',
      phone: '-2',
      status: 'active',
    });
    await buildMember(org.organizationId!, { lastName: 'Lapsed', status: 'lapsed' });
    const res = await t.http
      .get('/api/members?status=active&order[lastName]=asc')
      .set(bearer(orgToken))
      .set('Accept', 'text/csv')
      .expect(200);
    const lines = res.text.trim().split('\n');
    assert.equal(lines.length, 3, 'header and two active members');
    assert.match(lines[1]!, /^[0-9a-f-]{36},'\+1,'@Sum,p@example\.test,'-2,member,,active,/);
    assert.match(lines[2]!, /^[0-9a-f-]{36},"'=HYPERLINK\(""http:\/\/evil\.test""\)",Hacker,/);
    assert.ok(lines[2]!.includes('"{""note"":""a, \\""quoted\\"" value""}"'));
  });
});
