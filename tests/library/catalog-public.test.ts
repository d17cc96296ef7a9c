import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import { buildOrganization } from '../factories/index.ts';
import { buildCategory, buildResource } from '../factories/resources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const LIMIT = 40;

describe('public catalogue', () => {
  let t: TestApp;
  let organization: Organization;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestApp({ env: { LIBRARY_PUBLIC_REQUESTS_PER_HOUR: String(LIMIT) } });
    organization = await buildOrganization();
    const category = await buildCategory(organization.id, { name: 'Guides' });
    await buildCategory(organization.id, { name: 'Old', archived: true });
    for (const level of ['public', 'preview', 'members', 'premium', 'paid'] as const) {
      ids[level] = (
        await buildResource(t, organization.id, {
          name: `Open ${level} guide`,
          accessLevel: level,
          categoryIds: [category.id],
        })
      ).id;
    }
    ids.draft = (await buildResource(t, organization.id, { name: 'Open draft guide', status: 'draft' })).id;
  });
  after(() => t.close());

  const base = () => `/api/public/organizations/${organization.slug}`;

  it('when an anonymous visitor lists, then public, preview and paid published resources are shown, only public ones open', async () => {
    const res = await t.http.get(`${base()}/resources?sort=name`).expect(200);
    assert.deepEqual(
      res.body.data.map((r: { name: string }) => r.name),
      ['Open paid guide', 'Open preview guide', 'Open public guide'],
    );
    assert.deepEqual(
      res.body.data.map((r: { canOpen: boolean }) => r.canOpen),
      [false, false, true],
    );
    assert.ok(res.headers['ratelimit-policy']);
    assert.equal(res.headers['x-ratelimit-limit'], String(LIMIT));
    const search = await t.http.get(`${base()}/resources?q=guide&itemsPerPage=1`).expect(200);
    assert.equal(search.body.pagination.totalItems, 3);
  });

  it('when an anonymous visitor reads details, then visible ones answer and an anonymous view is recorded', async () => {
    const res = await t.http.get(`${base()}/resources/${ids.public}`).expect(200);
    assert.equal(res.body.stats.views, 1);
    const events = await t.container.sql.rows<{ user_id: string | null; visitor_key: string }>(
      'SELECT user_id, visitor_key FROM resource_usage_events WHERE resource_id = $1',
      [ids.public],
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.user_id, null);
    assert.match(events[0]!.visitor_key, /^anonymous:/);
    assert.ok(!events[0]!.visitor_key.includes('127.0.0.1'));
    for (const hidden of [ids.members, ids.premium, ids.draft])
      expectProblem(await t.http.get(`${base()}/resources/${hidden}`), 404, 'not_found');
    // its links are ones a visitor can follow: the catalogue's own download, no signed-in-only image
    assert.deepEqual(res.body.links, {
      download: `${base()}/resources/${ids.public}/download`,
      thumbnail: null,
      featuredImage: null,
    });
    const listed = await t.http.get(`${base()}/resources?sort=name`).expect(200);
    for (const item of listed.body.data as Array<{ id: string; links: { download: string } }>)
      assert.equal(item.links.download, `${base()}/resources/${item.id}/download`);
    assert.notEqual((await t.http.get(res.body.links.download)).status, 401);
  });

  it('when an anonymous visitor lists categories, then only active ones are shown, with what they may see counted', async () => {
    const res = await t.http.get(`${base()}/categories`).expect(200);
    assert.deepEqual(
      res.body.data.map((c: { name: string; resourceCount: number }) => [c.name, c.resourceCount]),
      [['Guides', 3]],
    );
  });

  it('when the organization is unknown or suspended, then 404', async () => {
    expectProblem(await t.http.get('/api/public/organizations/no-such-org/resources'), 404, 'not_found');
    const suspended = await buildOrganization();
    await buildResource(t, suspended.id, { name: 'Hidden' });
    await Organization.update({ status: 'suspended', suspendedAt: new Date() }, { where: { id: suspended.id } });
    expectProblem(await t.http.get(`/api/public/organizations/${suspended.slug}/resources`), 404, 'not_found');
    expectProblem(await t.http.get(`/api/public/organizations/${suspended.slug}/categories`), 404, 'not_found');
  });

  it('when one address exceeds the hourly limit, then 429 with Retry-After', async () => {
    let res: Awaited<ReturnType<typeof t.http.get>> | undefined;
    for (let i = 0; i <= LIMIT; i++) {
      res = await t.http.get(`${base()}/resources?itemsPerPage=1`);
      if (res.status === 429) break;
    }
    const body = expectProblem(res!, 429, 'rate_limited');
    assert.match(body.detail, /public catalogue/);
    assert.ok(Number(res!.headers['retry-after']) > 0);
  });
});
