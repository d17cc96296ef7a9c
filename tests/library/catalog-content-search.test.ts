// Search inside documents (issue 27, section 1): GET /api/resources?q= finds words of a document's
// extracted text, says which pages matched with a highlighted snippet, splits file-name tokens of names,
// forgives typos of the text's words, ranks a name match above a text match, and keeps the list's access
// rule inside the SQL (drafts, levels, tiers, entitlements). Files go through the upload API; ingestion
// runs as the worker runs it (the subscriber's job, then the ingestion job).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { makePdf } from '../support/documents.ts';
import { privateStorage, activeMemberToken } from './library-helpers.ts';

interface Match {
  pageNumber: number;
  location: string;
  snippet: string;
  highlights: Array<{ start: number; end: number }>;
}
interface Item {
  id: string;
  name: string;
  matches?: { pageCount: number; pages: Match[] };
}

const POLICY_PAGES = [
  'Continuing education policy\n\nThis policy applies to every practising member of the association from the first of January.',
  'Credits\n\nMembers earn forty credits in each two-year cycle. Self-study counts for at most ten credits of the cycle.',
  'Audit\n\nEach year the board draws five percent of members at random for an audit of their records.',
  'Appeals\n\nA member may appeal a decision of the board within thirty days by writing to the registrar.',
];

/** The highlighted words of a match, as a client reads them (code points). */
const highlighted = (match: Match) =>
  match.highlights.map(({ start, end }) => [...match.snippet].slice(start, end).join('').toLowerCase());

describe('library search inside documents', () => {
  let t: TestApp;
  let storage: Awaited<ReturnType<typeof privateStorage>>;
  let organizationId: string;
  let admin: string;
  let member: string;
  let premiumMember: string;
  let buyer: string;
  let buyerMemberId: string;
  let jobs: ReturnType<typeof jobHandlers>;
  const ids: Record<string, string> = {};
  const context = () => ({ jobId: 'test', attempt: 0, logger: t.container.logger });

  /** Uploads a PDF through the API and runs its ingestion as the worker would; returns the resource id. */
  async function publishPdf(name: string, pages: string[], fields: Record<string, string> = {}): Promise<string> {
    const request = t.http.post('/api/resources').set(bearer(admin));
    for (const [field, value] of Object.entries({ name, accessLevel: 'members', status: 'published', ...fields }))
      request.field(field, value);
    const res = await request.attach('file', await makePdf(pages), {
      filename: 'upload.pdf',
      contentType: 'application/octet-stream',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.id as string;
    const events = await t.container.sql.rows<{ id: string }>(
      "SELECT id FROM domain_events WHERE type = 'resource.published' AND data->>'id' = $1",
      [id],
    );
    assert.equal(events.length, 1);
    await jobs['domain-event.deliver']({ eventId: events[0]!.id, subscriber: 'ingestion.index' }, context());
    const runs = await t.container.sql.rows<{ run_id: string }>(
      "SELECT run_id FROM resource_ingestions WHERE resource_id = $1 AND status IN ('queued', 'running') AND run_id IS NOT NULL",
      [id],
    );
    for (const { run_id } of runs) await jobs['ingestion.run']({ runId: run_id }, context());
    const status = await t.http.get(`/api/resources/${id}/ingestion`).set(bearer(admin));
    assert.equal(status.body.status, 'done', JSON.stringify(status.body));
    assert.equal(status.body.pagesDone, pages.length);
    return id;
  }

  const search = async (q: string, token = admin, extra = '') => {
    const res = await t.http.get(`/api/resources?q=${encodeURIComponent(q)}${extra}`).set(bearer(token));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { data: Item[]; pagination: { totalItems: number } };
  };
  const found = async (q: string, token = admin) => (await search(q, token)).data.map((item) => item.id);

  before(async () => {
    storage = await privateStorage();
    t = await startTestApp({ env: storage.env });
    jobs = jobHandlers(t.container);
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    member = await activeMemberToken(t, organizationId);
    premiumMember = await activeMemberToken(t, organizationId, 'premium');
    const buyerUser = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    buyerMemberId = (await buildMember(organizationId, { userId: buyerUser.id, status: 'active', tier: 'member' })).id;
    buyer = await tokenFor(t, buyerUser);

    ids.policy = await publishPdf('policy.pdf', POLICY_PAGES);
    ids.auditHandbook = await publishPdf(
      'Audit handbook',
      ['How the office keeps its books.', 'Reconciling the accounts every month.'],
      { description: 'For treasurers.' },
    );
    ids.premium = await publishPdf('Salary survey', ['Median remuneration of zeppelin navigators rose.'], {
      accessLevel: 'premium',
    });
    ids.paid = await publishPdf('Buyers guide', ['Zeppelin hangar maintenance schedules.'], {
      accessLevel: 'paid',
      priceAmount: '10',
      priceCurrency: 'EUR',
    });
    ids.draft = await publishPdf('Board notes', ['The zeppelin excursion is cancelled.']);
    // back to draft; its passages are still there until the withdrawal runs: the filter must hide them
    const unpublish = await t.http.put(`/api/resources/${ids.draft}`).set(bearer(admin)).send({ status: 'draft' });
    assert.equal(unpublish.status, 200);
  });
  after(async () => {
    await t.close();
    await storage.remove();
  });

  it('when words appear only on the pages of a document, then the search finds it and names the matching pages with highlighted snippets', async () => {
    for (const [q, page, words] of [
      ['credits', 2, ['credits']],
      ['audit', 3, ['audit']],
      ['self-study', 2, ['self', 'study']], // the parts of a hyphenated word, each highlighted
    ] as const) {
      for (const token of [admin, member]) {
        const body = await search(q, token);
        const item = body.data.find((entry) => entry.id === ids.policy);
        assert.ok(item, `"${q}" finds policy.pdf`);
        assert.equal(item.matches!.pageCount, 1, `"${q}" matches one page`);
        const [match] = item.matches!.pages;
        assert.equal(match!.pageNumber, page);
        assert.equal(match!.location, 'page');
        assert.ok(!/[\uE000\uE001<>]/.test(match!.snippet), 'plain text, no marks');
        const marked = highlighted(match!);
        assert.ok(
          words.every((word) => marked.includes(word)),
          `"${q}" highlighted in ${JSON.stringify(match)}`,
        );
        assert.ok(
          marked.every((word) => (words as readonly string[]).includes(word)),
          'only the words searched',
        );
      }
    }
    // words on different pages of one document: it matches, each page is listed
    const spread = (await search('credits appeal', member)).data.find((entry) => entry.id === ids.policy)!;
    assert.deepEqual(spread.matches!.pages.map((page) => page.pageNumber).sort(), [2, 4]);
    // the last word as a prefix of a word of the text
    assert.ok((await found('registr', member)).includes(ids.policy));
    // a word on two pages: both listed, best first
    const both = (await search('board')).data.find((entry) => entry.id === ids.policy)!;
    assert.equal(both.matches!.pageCount, 2);
    assert.deepEqual(both.matches!.pages.map((page) => page.pageNumber).sort(), [3, 4]);
  });

  it('when a name holds a file name, then its words are found (policy finds "policy.pdf"), and without q there are no matches', async () => {
    const body = await search('policy');
    assert.equal(body.data[0]!.id, ids.policy);
    assert.deepEqual(
      body.data[0]!.matches!.pages.map((page) => page.pageNumber),
      [1],
    );
    assert.ok((await found('pdf')).includes(ids.policy));
    const list = await t.http.get('/api/resources').set(bearer(admin));
    assert.ok(list.body.data.every((item: Item) => !('matches' in item)));
  });

  it('when a word of the text is misspelt, then the search still finds the document', async () => {
    assert.ok((await found('continuing educaton', member)).includes(ids.policy));
    assert.ok((await found('registar', member)).includes(ids.policy));
    const body = await search('continuing educaton', member);
    const match = body.data.find((entry) => entry.id === ids.policy)!.matches!.pages[0]!;
    assert.equal(match.pageNumber, 1);
    assert.ok(highlighted(match).includes('education'), JSON.stringify(match));
    assert.deepEqual(await found('xqzvbnm', member), []);
  });

  it('when a word is in one resource name and in another document text, then the name match ranks first', async () => {
    const body = await search('audit', member);
    assert.deepEqual(
      body.data.map((item) => item.id),
      [ids.auditHandbook, ids.policy],
    );
    assert.deepEqual(body.data[0]!.matches, { pageCount: 0, pages: [] });
    assert.equal(body.pagination.totalItems, 2);
    // sort=newest still applies to a keyword search
    const newest = await search('audit', member, '&sort=newest');
    assert.deepEqual(
      newest.data.map((item) => item.id),
      [ids.auditHandbook, ids.policy],
    );
  });

  it('when the text is in a draft, a higher level or an unbought paid resource, then a member does not find it by that text', async () => {
    assert.deepEqual((await found('zeppelin', admin)).sort(), [ids.premium, ids.paid, ids.draft].sort());
    assert.deepEqual(await found('zeppelin', member), []);
    assert.equal((await search('zeppelin', member)).pagination.totalItems, 0);
    assert.deepEqual(await found('zeppelin', premiumMember), [ids.premium]);
    // a paid resource is seen by name, but its text is searched only once it is bought
    assert.deepEqual(await found('buyers', buyer), [ids.paid]);
    assert.deepEqual(await found('hangar', buyer), []);
    const grant = await t.http
      .post(`/api/resources/${ids.paid}/entitlements`)
      .set(bearer(admin))
      .send({ memberId: buyerMemberId });
    assert.equal(grant.status, 201);
    const bought = await search('hangar', buyer);
    assert.deepEqual(
      bought.data.map((item) => item.id),
      [ids.paid],
    );
    assert.equal(bought.data[0]!.matches!.pages[0]!.pageNumber, 1);
    // the name search of a paid resource the buyer has not bought shows no text
    const seen = await search('buyers', member);
    assert.deepEqual(seen.data[0]!.matches, { pageCount: 0, pages: [] });
  });
});
