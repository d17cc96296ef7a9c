import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { buildCategory, buildResource } from '../factories/resources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { activeMemberToken } from './library-helpers.ts';

describe('library list, search and details', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  let member: Record<string, string>;
  let organizationId: string;
  const ids: Record<string, string> = {};
  let archivedCategory: string;
  let activeCategory: string;

  const get = async (headers: Record<string, string>, query: string) => {
    const res = await t.http.get(`/api/resources${query ? `?${query}` : ''}`).set(headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as {
      data: Array<{ id: string; name: string; accessLabels: { library: string } }>;
      pagination: { totalItems: number; totalPages: number };
    };
  };
  const names = async (headers: Record<string, string>, query: string) =>
    (await get(headers, query)).data.map((r) => r.name);

  before(async () => {
    t = await startTestApp();
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = adminUser.organizationId!;
    admin = bearer(await tokenFor(t, adminUser));
    member = bearer(await activeMemberToken(t, organizationId));
    activeCategory = (await buildCategory(organizationId, { name: 'Governance' })).id;
    archivedCategory = (await buildCategory(organizationId, { name: 'Old stuff', archived: true })).id;
    const at = (day: string) => new Date(`2026-${day}T10:00:00Z`);
    ids.annual = (
      await buildResource(t, organizationId, {
        name: 'Annual report 2025',
        description: 'Finances and activities of the year',
        tags: ['finance', 'report'],
        publishedAt: at('02-01'),
        downloadCount: 5,
        categoryIds: [activeCategory],
      })
    ).id;
    ids.bylaws = (
      await buildResource(t, organizationId, {
        name: 'Governance bylaws',
        description: 'How the board is elected',
        tags: ['governance'],
        publishedAt: at('01-15'),
        downloadCount: 50,
        accessLevel: 'members',
        categoryIds: [activeCategory, archivedCategory],
      })
    ).id;
    ids.keynote = (
      await buildResource(t, organizationId, {
        name: 'Keynote recording',
        description: 'The annual congress keynote on strategy',
        type: 'video',
        format: 'mp4',
        tags: ['congress'],
        publishedAt: at('03-01'),
        downloadCount: 20,
        accessLevel: 'premium',
      })
    ).id;
    ids.archived = (
      await buildResource(t, organizationId, {
        name: 'Legacy handbook',
        tags: ['handbook'],
        accessLevel: 'preview',
        publishedAt: at('01-01'),
        categoryIds: [archivedCategory],
      })
    ).id;
    ids.draft = (await buildResource(t, organizationId, { name: 'Annual report 2026 draft', status: 'draft' })).id;
    ids.paid = (
      await buildResource(t, organizationId, {
        name: 'Salary survey',
        accessLevel: 'paid',
        tags: ['report'],
        publishedAt: at('02-15'),
        downloadCount: 1,
      })
    ).id;
  });
  after(() => t.close());

  it('when a member lists, then only what the policy shows is listed and counted (no draft, no premium)', async () => {
    const page = await get(member, 'itemsPerPage=2');
    assert.equal(page.pagination.totalItems, 4);
    assert.equal(page.pagination.totalPages, 2);
    assert.deepEqual(await names(member, ''), [
      'Salary survey',
      'Annual report 2025',
      'Governance bylaws',
      'Legacy handbook',
    ]);
  });

  it('when an admin lists, then drafts are there too, and status filters them', async () => {
    assert.equal((await get(admin, '')).pagination.totalItems, 6);
    assert.deepEqual(await names(admin, 'status=draft'), ['Annual report 2026 draft']);
    assert.deepEqual(await names(member, 'status=draft'), []);
  });

  it('when sorting by downloads or name, then the order follows', async () => {
    assert.deepEqual(await names(admin, 'sort=downloads&status=published'), [
      'Governance bylaws',
      'Keynote recording',
      'Annual report 2025',
      'Salary survey',
      'Legacy handbook',
    ]);
    assert.deepEqual((await names(member, 'sort=name')).slice(0, 2), ['Annual report 2025', 'Governance bylaws']);
  });

  it('when filtering by type, access level (either vocabulary), tag and publication date, then only matches come back', async () => {
    assert.deepEqual(await names(admin, 'type=video'), ['Keynote recording']);
    // a label finds every resource answered with it: the premium keynote is "Fully Gated" too
    assert.deepEqual(await names(admin, 'accessLevel=Fully%20Gated'), ['Keynote recording', 'Governance bylaws']);
    assert.deepEqual(await names(admin, 'accessLevel=members'), ['Governance bylaws']);
    const labelled = (await get(admin, 'accessLevel=Member')).data;
    assert.deepEqual(
      labelled.map((r) => r.accessLabels.library),
      ['Member', 'Member'],
    );
    assert.deepEqual(await names(admin, 'accessLevel[]=premium&accessLevel[]=paid'), [
      'Keynote recording',
      'Salary survey',
    ]);
    assert.deepEqual(await names(member, 'tag=report'), ['Salary survey', 'Annual report 2025']);
    assert.deepEqual(await names(member, 'publishedAt[after]=2026-01-10&publishedAt[before]=2026-02-10'), [
      'Annual report 2025',
      'Governance bylaws',
    ]);
  });

  it('when filtering by category, then an archived category matches for admins only', async () => {
    assert.deepEqual(await names(member, `category=${activeCategory}`), ['Annual report 2025', 'Governance bylaws']);
    assert.deepEqual(await names(member, `category=${archivedCategory}`), []);
    assert.deepEqual(await names(admin, `category=${archivedCategory}`), ['Governance bylaws', 'Legacy handbook']);
  });

  it('when searching, then name matches rank first, the last word is a prefix, and description and tags match', async () => {
    assert.deepEqual((await names(admin, 'q=annual')).slice(0, 2).sort(), [
      'Annual report 2025',
      'Annual report 2026 draft',
    ]);
    assert.equal((await names(admin, 'q=annual')).at(-1), 'Keynote recording');
    assert.deepEqual(await names(member, 'q=annu%20rep'), ['Annual report 2025']);
    assert.deepEqual(await names(member, 'q=elected'), ['Governance bylaws']);
    // "finance" is also close in spelling to "governance": exact matches rank first
    assert.equal((await names(member, 'q=finance'))[0], 'Annual report 2025');
  });

  it('when the keyword carries punctuation a URL encoder leaves as is (encodeURIComponent), then it is searched as words', async () => {
    // `'`, `!`, `(`, `)` and `*` stay unencoded by encodeURIComponent: the contract must not refuse them
    assert.deepEqual(await names(member, `q=${encodeURIComponent("annual's (report)!*")}`), ['Annual report 2025']);
    assert.deepEqual(await names(member, `q=${encodeURIComponent('annual & report | !')}`), ['Annual report 2025']);
  });

  it('when the keyword has a typo, then trigram similarity still finds it', async () => {
    assert.ok((await names(member, 'q=anual%20reprot')).includes('Annual report 2025'));
    assert.ok((await names(member, 'q=handbok')).includes('Legacy handbook'));
    assert.deepEqual(await names(member, 'q=xylophone'), []);
  });

  it('when a member searches, then hidden matches are neither listed nor counted', async () => {
    const page = await get(member, 'q=keynote');
    assert.equal(page.pagination.totalItems, 0);
    assert.equal((await get(admin, 'q=keynote')).pagination.totalItems, 1);
    const draftless = await get(member, 'q=annual&itemsPerPage=1&page=5');
    assert.deepEqual(draftless.data, []);
    assert.equal(draftless.pagination.totalItems, 1);
  });

  it('when a filter value is malformed, then 400 names the parameter', async () => {
    expectProblem(await t.http.get('/api/resources?accessLevel=gold').set(admin), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/resources?sort=random').set(admin), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/resources?publishedAt[after]=yesterday').set(admin), 400, 'invalid_filter');
    expectProblem(await t.http.get('/api/resources?colour=red').set(admin), 400, 'invalid_filter');
  });

  it('when reading details, then the resource comes back and a view is recorded', async () => {
    const res = await t.http.get(`/api/resources/${ids.annual}`).set(member).expect(200);
    assert.equal(res.body.name, 'Annual report 2025');
    assert.equal(res.body.stats.views, 1);
    assert.deepEqual(res.body.categories, [{ id: activeCategory, name: 'Governance' }]);
    assert.equal(res.body.canOpen, true);
    const events = await t.container.sql.rows<{ kind: string }>(
      'SELECT kind FROM resource_usage_events WHERE resource_id = $1',
      [ids.annual],
    );
    assert.deepEqual(
      events.map((e) => e.kind),
      ['view'],
    );
    const paid = await t.http.get(`/api/resources/${ids.paid}`).set(member).expect(200);
    assert.equal(paid.body.canOpen, false);
    assert.deepEqual(paid.body.price, { amount: '12.50', currency: 'EUR' });
  });

  it('when a member asks for a draft or premium resource, then 404 and no view is recorded', async () => {
    for (const id of [ids.draft, ids.keynote])
      expectProblem(await t.http.get(`/api/resources/${id}`).set(member), 404, 'not_found');
    const events = await t.container.sql.rows(
      'SELECT 1 FROM resource_usage_events WHERE resource_id = ANY($1::uuid[])',
      [[ids.draft, ids.keynote]],
    );
    assert.equal(events.length, 0);
  });
});
