// The demo library: a development first start (and `npm run seed:demo`) publishes three PDF guides in
// three categories through the library's service, the worker ingests them, and the chat answers from
// them at once, each reader seeing only what the guide's access level allows. Seeding again adds nothing;
// a library that cannot be stored never costs the newcomer the printed credentials.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoLibraryDocuments } from '../../seeders/demo-library.documents.ts';
import { seedDemo, type DemoData } from '../../seeders/demo.seeder.ts';
import { bearer, buildUser, loginFor, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

interface ResourceItem {
  id: string;
  name: string;
  accessLevel: string;
  status: string;
  categories: Array<{ name: string }>;
}

describe('demo library', () => {
  let t: TestApp;
  let demo: DemoData;
  let resources: ResourceItem[];
  before(async () => {
    t = await startTestApp({ workers: true, env: { DEMO_API_KEY: 'gh_live_demoLibraryTestKey0123456789' } });
    demo = (await seedDemo(t.container))!;
    const list = await t.http.get('/api/resources?itemsPerPage=50').set(bearer(demo.apiKey));
    assert.equal(list.status, 200);
    resources = list.body.data;
  });
  after(() => t.close());

  const ask = async (token: string, query: string) => {
    const res = await t.http.post('/api/resources/chat').set(bearer(token)).send({ query });
    assert.equal(res.status, 200);
    return res.body as { answer: string; sources: Array<{ resourceName: string; pageNumber: number }> };
  };

  it('when the demo data is created, then three published guides (public, members-only, premium) sit in their categories and are ingested page by page', async () => {
    assert.equal(demo.libraryDocuments, 3);
    assert.deepEqual(
      resources.map((r) => [r.name, r.accessLevel, r.status, r.categories.map((c) => c.name)]).sort(),
      demoLibraryDocuments.map((d) => [d.name, d.accessLevel, 'published', [d.category.name]]).sort(),
    );
    for (const resource of resources) {
      const pages = demoLibraryDocuments.find((d) => d.name === resource.name)!.pages.length;
      let ingestion: { status: string; pagesDone: number; pagesTotal: number | null } | undefined;
      for (let waited = 0; waited < 120_000 && ingestion?.status !== 'done'; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const res = await t.http.get(`/api/resources/${resource.id}/ingestion`).set(bearer(demo.apiKey));
        assert.equal(res.status, 200);
        ingestion = res.body;
      }
      assert.equal(ingestion?.status, 'done', `${resource.name} was not ingested`);
      assert.equal(ingestion.pagesDone, pages);
    }
  });

  it('when the API key the banner prints asks the demo library, then the answer starts with the answering sentence (not the page heading) and cites its page', async () => {
    const body = await ask(demo.apiKey, 'How much are the annual membership dues for students?');
    assert.deepEqual(body.sources.map((s) => [s.resourceName, s.pageNumber])[0], ['Member Handbook', 1]);
    assert.match(body.answer, /^Annual membership dues are 180 dollars for full members and 60 dollars for students\./);
  });

  it('when a member without the premium tier asks about the premium guide, then nothing of it is cited; a premium member gets it', async () => {
    const user = async (tier: 'member' | 'premium') => {
      const account = await buildUser({ role: 'ROLE_MEMBER', organizationId: demo.organization.id });
      await buildMember(demo.organization.id, { userId: account.id, tier, status: 'active' });
      return tokenFor(t, account);
    };
    const question = 'What is the maximum research grant for bridge durability projects?';
    const member = await ask(await user('member'), question);
    assert.ok(
      member.sources.every((s) => s.resourceName !== 'Grants and Bursaries Guide'),
      JSON.stringify(member.sources),
    );
    const premium = await ask(await user('premium'), question);
    assert.deepEqual(premium.sources.map((s) => [s.resourceName, s.pageNumber])[0], ['Grants and Bursaries Guide', 1]);
  });

  it('when the demo data is seeded again, then no guide or category is added', async () => {
    assert.equal(await seedDemo(t.container), null);
    const list = await t.http.get('/api/resources?itemsPerPage=50').set(bearer(demo.apiKey));
    assert.equal(list.body.pagination.totalItems, 3);
    const categories = await t.http.get('/api/resources/categories?itemsPerPage=50').set(bearer(demo.apiKey));
    assert.equal(categories.status, 200);
    assert.deepEqual(
      categories.body.data.map((c: { name: string }) => c.name).sort(),
      demoLibraryDocuments.map((d) => d.category.name).sort(),
    );
  });
});

describe('demo library that cannot be stored', () => {
  let t: TestApp;
  const blocked = path.join(mkdtempSync(path.join(tmpdir(), 'guildhall-demo-blocked-')), 'not-a-folder');
  before(async () => {
    writeFileSync(blocked, 'a file where the library folder should be');
    t = await startTestApp({ env: { LIBRARY_STORAGE_DIR: blocked } });
  });
  after(async () => {
    await t.close();
    rmSync(path.dirname(blocked), { recursive: true, force: true });
  });

  it('when the guides cannot be stored on a first start, then the credentials are still returned (and printed) and nothing half-made is left', async () => {
    const demo = await seedDemo(t.container);
    assert.ok(demo, 'no demo data returned');
    assert.equal(demo.libraryDocuments, 0);
    assert.equal((await loginFor(t, demo.clientAdmin, demo.clientAdminPassword)).length > 0, true);
    const list = await t.http.get('/api/resources').set(bearer(demo.apiKey));
    assert.equal(list.status, 200);
    assert.equal(list.body.pagination.totalItems, 0);
    const categories = await t.http.get('/api/resources/categories').set(bearer(demo.apiKey));
    assert.equal(categories.body.pagination.totalItems, 0);
  });
});
