// The chat without Claude configured: search mode (extractive answers from the best passages), the
// access policy across roles, drafts, tiers, paid resources and tenants, honest "no answer", streaming,
// history, feedback and the content-gaps report. Every response is checked against openapi.yaml.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { parseEvents } from '../support/sse.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { buildLibrary, type LibraryFixture } from './library-fixture.ts';
import { textBody } from '../setup/body-parsers.ts';

type Who = keyof LibraryFixture['users'];

describe('library chat, search mode', () => {
  let t: TestApp;
  let lib: LibraryFixture;
  const tokens = {} as Record<Who, string>;

  before(async () => {
    t = await startTestApp();
    lib = await buildLibrary(t);
    for (const who of Object.keys(lib.users) as Who[]) tokens[who] = await tokenFor(t, lib.users[who]);
  });
  after(() => t?.close());

  const ask = (who: Who, body: object) => t.http.post('/api/resources/chat').set(bearer(tokens[who])).send(body);

  it('when a member asks what a page answers, then the answer is the sentences that answer it, citing that page', async () => {
    const res = await ask('member', { query: 'How long do I have to ask for a refund of my dues?' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.mode, 'search');
    assert.equal(res.body.fallbackReason, null);
    assert.match(res.body.answer, /30 days/);
    assert.ok(res.body.answer.length < 600, res.body.answer);
    assert.ok(!res.body.answer.includes('guild office'), 'not a wall of text');
    assert.equal(res.body.sources[0].resourceId, lib.docs.handbook);
    assert.equal(res.body.sources[0].resourceName, 'Member Handbook');
    assert.equal(res.body.sources[0].pageNumber, 2);
    assert.match(res.body.sources[0].excerpt, /refund/);
    assert.ok(res.body.confidence >= 0.4 && res.body.confidence <= 1, String(res.body.confidence));
    assert.ok(Array.isArray(res.body.suggestedQuestions));
  });

  it('when nothing in the library is relevant, then it says so, with low confidence and no sources', async () => {
    const res = await ask('member', { query: 'What is the best recipe for sourdough bread with rye flour?' });
    assert.equal(res.status, 200);
    assert.match(res.body.answer, /library has no answer/);
    assert.deepEqual(res.body.sources, []);
    assert.ok(res.body.confidence < 0.4, String(res.body.confidence));
  });

  it('when readers of every standing ask about protected documents, then no answer cites or quotes what they may not open', async () => {
    const cases: Array<[string, keyof LibraryFixture['docs'], RegExp, Who[], Who[]]> = [
      [
        'What is the median salary in the zircon survey?',
        'premiumSurvey',
        /142,000/,
        ['admin', 'staff', 'premium'],
        ['member', 'buyer', 'lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'What does the obsidian checklist list for inspections?',
        'paidToolkit',
        /twelve inspection steps/,
        ['admin', 'staff', 'buyer'],
        ['member', 'premium', 'lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'What did the board agree in the quartz session?',
        'draftMinutes',
        /raise annual dues/,
        ['admin'],
        ['staff', 'member', 'premium', 'buyer', 'visitor', 'otherAdmin'],
      ],
      [
        'What is a wayfinder mentor?',
        'membersGuide',
        /wayfinder/i,
        ['staff', 'member', 'premium'],
        ['lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'What is the jasper rule of the other guild?',
        'otherTenant',
        /999 dollars|jasper/,
        ['otherAdmin'],
        ['admin', 'member', 'premium'],
      ],
    ];
    for (const [query, doc, secret, allowed, refused] of cases) {
      for (const who of allowed) {
        const res = await ask(who, { query });
        assert.equal(res.status, 200);
        assert.ok(
          res.body.sources.some((s: { resourceId: string }) => s.resourceId === lib.docs[doc]),
          `${who} should be answered from ${doc}: ${JSON.stringify(res.body)}`,
        );
      }
      for (const who of refused) {
        const res = await ask(who, { query });
        assert.equal(res.status, 200);
        const body = JSON.stringify(res.body);
        assert.ok(!body.includes(lib.docs[doc]), `${who} must not be cited ${doc}: ${body}`);
        assert.doesNotMatch(res.body.answer, secret, `${who} must not read ${doc}`);
      }
    }
  });

  it('when the question is scoped to a category, then only that category’s resources answer', async () => {
    const res = await ask('admin', { query: 'annual dues refund', resourceScope: [lib.categoryId] });
    assert.equal(res.status, 200);
    for (const source of res.body.sources)
      assert.ok([lib.docs.membersGuide, lib.docs.draftMinutes].includes(source.resourceId), JSON.stringify(source));
    // an archived category scopes to nothing for members (as the library's category filter), still for managers
    const scoped = { query: 'What is a wayfinder mentor?', resourceScope: [lib.categoryId] };
    assert.ok((await ask('member', scoped)).body.sources.length > 0, 'the member is answered from the category');
    await t.db.sequelize.query('UPDATE resource_categories SET archived_at = now() WHERE id = $1', {
      bind: [lib.categoryId],
    });
    try {
      assert.deepEqual((await ask('member', scoped)).body.sources, []);
      assert.ok((await ask('admin', scoped)).body.sources.length > 0, 'managers keep the archived category');
    } finally {
      await t.db.sequelize.query('UPDATE resource_categories SET archived_at = NULL WHERE id = $1', {
        bind: [lib.categoryId],
      });
    }
  });

  it('when the client accepts text/event-stream, then tokens stream, then the answer with its sources, then done', async () => {
    const res = await ask('member', { query: 'When does conference registration open?' })
      .set('Accept', 'text/event-stream')
      .buffer(true)
      .parse(textBody);
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /^text\/event-stream/);
    const events = parseEvents(res.body as string);
    const tokens = events.filter((e) => e.event === 'token');
    assert.ok(tokens.length > 1);
    const answer = events.find((e) => e.event === 'answer')!;
    assert.equal(tokens.map((e) => e.data.text).join(''), answer.data.answer);
    assert.match(answer.data.answer, /first of June/);
    assert.equal(answer.data.sources[0].pageNumber, 3);
    assert.deepEqual(events.at(-1), { event: 'done', data: {} });
    assert.ok(events.findIndex((e) => e.event === 'answer') > events.findLastIndex((e) => e.event === 'token'));
  });

  it('when Accept weighs the stream down or names neither format, then JSON, or 406', async () => {
    const query = { query: 'When does conference registration open?' };
    for (const accept of [
      'application/json, text/event-stream;q=0',
      'text/event-stream;q=0.5, application/json',
      '*/*',
    ]) {
      const res = await ask('member', query).set('Accept', accept);
      assert.equal(res.status, 200, accept);
      assert.match(res.headers['content-type'] ?? '', /^application\/json/, accept);
      assert.match(res.body.answer, /first of June/);
    }
    expectProblem(await ask('member', query).set('Accept', 'text/html'), 406, 'not_acceptable');
  });

  it('when a conversation id is not the asker’s, then 404 (a stream too, before any event)', async () => {
    const mine = await ask('member', { query: 'What are the annual dues for students?' });
    expectProblem(
      await ask('premium', { query: 'and for full members?', conversationId: mine.body.conversationId }),
      404,
      'not_found',
    );
    expectProblem(
      await ask('premium', { query: 'and?', conversationId: mine.body.conversationId }).set(
        'Accept',
        'text/event-stream',
      ),
      404,
      'not_found',
    );
  });

  it('history: the asker’s conversations with their turns, paged, and nobody else’s', async () => {
    const before = (await t.http.get('/api/resources/chat/history').set(bearer(tokens.buyer))).body.pagination
      .totalItems as number;
    const first = await ask('buyer', { query: 'What are the annual dues for students?' });
    const second = await ask('buyer', {
      query: 'How many hours of continuing education are required?',
      conversationId: first.body.conversationId,
    });
    assert.equal(second.body.conversationId, first.body.conversationId);
    await ask('buyer', { query: 'Where is the annual conference?' });

    const page = await t.http.get('/api/resources/chat/history?itemsPerPage=1').set(bearer(tokens.buyer));
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.pagination.totalItems, before + 2);
    assert.equal(page.body.data.length, 1);
    assert.match(page.headers.link, /rel="next"/);
    const one = await t.http
      .get(`/api/resources/chat/history?conversationId=${first.body.conversationId}`)
      .set(bearer(tokens.buyer));
    const conversation = one.body.data[0];
    assert.equal(conversation.title, 'What are the annual dues for students?');
    assert.deepEqual(
      conversation.turns.map((turn: { query: string }) => turn.query),
      ['What are the annual dues for students?', 'How many hours of continuing education are required?'],
    );
    assert.equal(conversation.turns[1].id, second.body.turnId);
    assert.match(conversation.turns[1].answer, /24 hours/);

    const other = await t.http
      .get(`/api/resources/chat/history?conversationId=${first.body.conversationId}`)
      .set(bearer(tokens.premium));
    assert.equal(other.status, 200);
    assert.equal(other.body.pagination.totalItems, 0);
  });

  it('feedback: rates one answer (by turn or the conversation’s latest), only the asker’s own', async () => {
    const answer = await ask('staff', { query: 'What discount do members get on the conference fee?' });
    const rated = await t.http
      .post('/api/resources/chat/feedback')
      .set(bearer(tokens.staff))
      .send({ turnId: answer.body.turnId, helpful: false, comment: 'Wanted the student rate' });
    assert.equal(rated.status, 200, JSON.stringify(rated.body));
    assert.equal(rated.body.helpful, false);
    assert.equal(rated.body.feedbackComment, 'Wanted the student rate');
    const again = await t.http
      .post('/api/resources/chat/feedback')
      .set(bearer(tokens.staff))
      .send({ conversationId: answer.body.conversationId, helpful: true });
    assert.equal(again.body.id, answer.body.turnId);
    assert.equal(again.body.helpful, true);
    expectProblem(
      await t.http
        .post('/api/resources/chat/feedback')
        .set(bearer(tokens.member))
        .send({ turnId: answer.body.turnId, helpful: false }),
      404,
      'not_found',
    );
    expectProblem(
      await t.http.post('/api/resources/chat/feedback').set(bearer(tokens.staff)).send({ helpful: false }),
      400,
      'validation_failed',
    );
  });

  it('content gaps: client admins see low-confidence and unhelpful questions grouped; members may not', async () => {
    for (let i = 0; i < 2; i++) await ask('member', { query: 'What is the dress code for the gala dinner?' });
    await ask('premium', { query: 'what is the dress code for the gala dinner' });
    const rated = await ask('premium', { query: 'What are the annual dues for full members?' });
    await t.http
      .post('/api/resources/chat/feedback')
      .set(bearer(tokens.premium))
      .send({ turnId: rated.body.turnId, helpful: false, comment: 'Out of date' });

    const res = await t.http.get('/api/resources/reports/content-gaps').set(bearer(tokens.admin));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const dress = res.body.data.find((gap: { question: string }) => /dress code/i.test(gap.question));
    assert.ok(dress, JSON.stringify(res.body.data));
    assert.equal(dress.asked, 3);
    assert.equal(dress.lowConfidence, 3);
    const dues = res.body.data.find((gap: { question: string }) => /full members/.test(gap.question));
    assert.equal(dues.unhelpful, 1);
    assert.deepEqual(dues.comments, ['Out of date']);
    expectProblem(await t.http.get('/api/resources/reports/content-gaps').set(bearer(tokens.member)), 403, 'forbidden');
    // since, its colons sent as they are
    const since = await t.http
      .get('/api/resources/reports/content-gaps?since=2020-01-01T00:00:00Z')
      .set(bearer(tokens.admin));
    assert.equal(since.status, 200, JSON.stringify(since.body));
    assert.equal(since.body.pagination.totalItems, res.body.pagination.totalItems);
    const other = await t.http.get('/api/resources/reports/content-gaps').set(bearer(tokens.otherAdmin));
    assert.ok(!other.body.data.some((gap: { question: string }) => /dress code/i.test(gap.question)));
  });

  it('when an answer cites a resource its asker can no longer open, then history and feedback withhold it; open again, it shows', async () => {
    const query = 'What is the median salary in the zircon survey?';
    const answered = await ask('premium', { query });
    assert.match(answered.body.answer, /142,000/);
    const history = async () =>
      (
        await t.http
          .get(`/api/resources/chat/history?conversationId=${answered.body.conversationId}`)
          .set(bearer(tokens.premium))
          .expect(200)
      ).body.data[0].turns[0];
    assert.match((await history()).answer, /142,000/);
    const setStatus = (status: string) =>
      t.http.put(`/api/resources/${lib.docs.premiumSurvey}`).set(bearer(tokens.admin)).send({ status }).expect(200);
    await setStatus('draft'); // unpublished: members open it no more (nor do downgraded ones, or revoked purchases)
    try {
      const withheld = await history();
      assert.equal(withheld.query, query, 'the question stays');
      assert.doesNotMatch(withheld.answer, /142,000/);
      assert.match(withheld.answer, /no longer open/);
      assert.deepEqual(withheld.sources, []);
      const rated = await t.http
        .post('/api/resources/chat/feedback')
        .set(bearer(tokens.premium))
        .send({ turnId: answered.body.turnId, helpful: true })
        .expect(200);
      assert.doesNotMatch(JSON.stringify(rated.body), /142,000/);
      // a follow-up in the conversation is not answered from it either
      const followUp = await ask('premium', { query, conversationId: answered.body.conversationId });
      assert.doesNotMatch(JSON.stringify(followUp.body), /142,000/);
    } finally {
      await setStatus('published');
    }
    assert.match((await history()).answer, /142,000/);
  });

  it('without credentials, 401', async () => {
    expectProblem(await t.http.post('/api/resources/chat').send({ query: 'dues' }), 401, 'unauthenticated');
  });
});
