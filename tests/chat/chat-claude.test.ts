// The chat with Claude configured, driven through the real @anthropic-ai/sdk against the local
// stand-in: cited answers (plain and streamed), follow-ups, and the fall back to search mode when the
// model is overloaded (529), slow (timeout), malformed or fails mid-stream. The model never sees a
// passage the asker may not open, and a document that tries prompt injection cannot widen that.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { bearer, tokenFor } from '../factories/index.ts';
import { AnthropicStandIn, searchResultsOf } from '../support/anthropic-stand-in.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { parseEvents } from '../support/sse.ts';
import { buildLibrary, type LibraryFixture } from './library-fixture.ts';
import { textBody } from '../setup/body-parsers.ts';

type Who = keyof LibraryFixture['users'];
const TIMEOUT_MS = 1000;

describe('library chat, with Claude (stand-in)', () => {
  let t: TestApp;
  let lib: LibraryFixture;
  let standIn: AnthropicStandIn;
  const tokens = {} as Record<Who, string>;

  before(async () => {
    standIn = await AnthropicStandIn.start();
    t = await startTestApp({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: standIn.url,
        ANTHROPIC_MODEL: 'claude-test',
        ANTHROPIC_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    lib = await buildLibrary(t);
    for (const who of ['admin', 'member', 'premium', 'visitor'] as Who[])
      tokens[who] = await tokenFor(t, lib.users[who]);
  });
  beforeEach(() => standIn.reset());
  after(async () => {
    await t?.close();
    await standIn?.close();
  });

  const ask = (who: Who, body: object) => t.http.post('/api/resources/chat').set(bearer(tokens[who])).send(body);
  const stream = (who: Who, body: object) =>
    ask(who, body).set('Accept', 'text/event-stream').buffer(true).parse(textBody);
  const sentTexts = () =>
    standIn.requests.flatMap((request) =>
      searchResultsOf(request).map((r) => `${r.title} ${r.content.map((c) => c.text).join(' ')}`),
    );

  it('when Claude answers with citations, then the sources are the cited passages, page-exact, sent as search results', async () => {
    const res = await ask('member', { query: 'How long do I have to ask for a refund of my dues?' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.mode, 'ai');
    assert.match(res.body.answer, /^According to the library, .*30 days/);
    assert.equal(res.body.sources.length, 1);
    assert.deepEqual(
      { ...res.body.sources[0], excerpt: undefined },
      { resourceId: lib.docs.handbook, resourceName: 'Member Handbook', pageNumber: 2, excerpt: undefined },
    );
    assert.ok(res.body.confidence >= 0.4);
    const [request] = standIn.requests;
    assert.equal(request!.model, 'claude-test');
    assert.match(request!.system ?? '', /ONLY the search results/);
    const results = searchResultsOf(request!);
    assert.ok(results.length >= 1);
    assert.ok(results.every((r) => r.citations?.enabled === true));
    assert.ok(
      standIn.headers[0]!['x-api-key'] === 'sk-ant-test' || standIn.headers[0]!.authorization === 'Bearer sk-ant-test',
    );
  });

  it('when the model cites an index it was never sent, then that citation is dropped', async () => {
    standIn.behave({
      kind: 'reply',
      reply: { parts: [{ text: 'Dues are refundable within 30 days.', cite: [0, 57] }] },
    });
    const res = await ask('member', { query: 'refund of dues within 30 days' });
    assert.equal(res.body.mode, 'ai');
    assert.equal(res.body.sources.length, 1);
  });

  for (const [name, cite] of [
    ['cites nothing', []],
    ['cites only an index it was never sent', [57]],
  ] as const) {
    it(`when Claude ${name}, then the answer comes in search mode (malformed), streamed or not`, async () => {
      const reply = { parts: [{ text: 'The dues are refundable on Sundays.', cite: [...cite] }] };
      standIn.behave({ kind: 'reply', reply });
      const res = await ask('member', { query: 'How long do I have to ask for a refund of my dues?' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual([res.body.mode, res.body.fallbackReason], ['search', 'malformed']);
      assert.doesNotMatch(res.body.answer, /Sundays/);
      assert.match(res.body.answer, /30 days/);
      assert.equal(res.body.sources[0].pageNumber, 2);

      standIn.behave({ kind: 'reply', reply });
      const events = parseEvents(
        (await stream('member', { query: 'How long do I have to ask for a refund of my dues?' })).body as string,
      );
      assert.equal(events.find((e) => e.event === 'reset')?.data.reason, 'malformed');
      const answer = events.find((e) => e.event === 'answer')!.data;
      assert.deepEqual([answer.mode, answer.fallbackReason], ['search', 'malformed']);
      assert.doesNotMatch(answer.answer as string, /Sundays/);
    });
  }

  it('when nothing relevant is retrieved, then the model is not asked and the answer says the library has no answer', async () => {
    const res = await ask('member', { query: 'What is the best recipe for sourdough bread with rye flour?' });
    assert.match(res.body.answer, /library has no answer/);
    assert.deepEqual(res.body.sources, []);
    assert.equal(standIn.requests.length, 0);
  });

  it('when streaming, then Claude’s tokens arrive as they are written, then the answer with the cited sources, then done', async () => {
    const res = await stream('member', { query: 'When does conference registration open?' });
    assert.equal(res.status, 200);
    const events = parseEvents(res.body as string);
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text);
    assert.ok(tokens.length > 3);
    const answer = events.find((e) => e.event === 'answer')!.data;
    assert.equal(answer.mode, 'ai');
    assert.equal(tokens.join('').trim(), answer.answer);
    assert.match(answer.answer, /first of June/);
    assert.equal(answer.sources[0].pageNumber, 3);
    assert.equal(events.at(-1)!.event, 'done');
    assert.equal(standIn.requests[0]!.stream, true);
  });

  it('when following up in a conversation, then the earlier turns are passed to Claude', async () => {
    const first = await ask('member', { query: 'What are the annual dues for students?' });
    await ask('member', {
      query: 'And how much is the refund if I cancel within 30 days of renewal?',
      conversationId: first.body.conversationId,
    });
    const followUp = standIn.requests.at(-1)!;
    assert.equal(followUp.messages.length, 3);
    assert.deepEqual(followUp.messages[0], { role: 'user', content: 'What are the annual dues for students?' });
    assert.equal(followUp.messages[1]!.role, 'assistant');
    assert.equal(followUp.messages[1]!.content, first.body.answer);
  });

  it('when an earlier answer cites a resource the asker can no longer open, then Claude is not given it', async () => {
    const first = await ask('premium', { query: 'What is the median salary in the zircon survey?' });
    assert.match(first.body.answer, /142,000/);
    await t.http
      .put(`/api/resources/${lib.docs.premiumSurvey}`)
      .set(bearer(tokens.admin))
      .send({ status: 'draft' })
      .expect(200);
    try {
      await ask('premium', { query: 'And how much is the refund?', conversationId: first.body.conversationId });
      const followUp = standIn.requests.at(-1)!;
      assert.equal(followUp.messages[1]!.role, 'assistant');
      assert.doesNotMatch(JSON.stringify(followUp.messages), /142,000/);
      assert.match(String(followUp.messages[1]!.content), /no longer open/);
    } finally {
      await t.http
        .put(`/api/resources/${lib.docs.premiumSurvey}`)
        .set(bearer(tokens.admin))
        .send({ status: 'published' })
        .expect(200);
    }
  });

  for (const [name, behaviour, reason] of [
    ['overloaded (529)', { kind: 'overloaded' }, 'overloaded'],
    ['too slow (timeout)', { kind: 'slow', delayMs: TIMEOUT_MS * 3 }, 'timeout'],
    ['malformed', { kind: 'malformed' }, 'malformed'],
    ['failing (500)', { kind: 'error', status: 500 }, 'error'],
  ] as const) {
    it(`when Claude is ${name}, then the answer comes in search mode with the same shape`, async () => {
      standIn.behave(behaviour);
      const started = Date.now();
      const res = await ask('member', { query: 'How many hours of continuing education are required?' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mode, 'search');
      assert.equal(res.body.fallbackReason, reason);
      assert.match(res.body.answer, /24 hours/);
      assert.equal(res.body.sources[0].pageNumber, 4);
      assert.ok(Date.now() - started < TIMEOUT_MS + 2500, `took ${Date.now() - started} ms`);
    });
  }

  it('when the stream is malformed or overloaded before any token, then the streamed answer is the search-mode one', async () => {
    for (const behaviour of [{ kind: 'malformed' }, { kind: 'overloaded' }] as const) {
      standIn.behave(behaviour);
      const events = parseEvents(
        (await stream('member', { query: 'How many hours of continuing education are required?' })).body as string,
      );
      assert.ok(!events.some((e) => e.event === 'reset'));
      const answer = events.find((e) => e.event === 'answer')!.data;
      assert.equal(answer.mode, 'search');
      assert.equal(
        events
          .filter((e) => e.event === 'token')
          .map((e) => e.data.text)
          .join(''),
        answer.answer,
      );
    }
  });

  it('when Claude fails mid-stream, then a reset event voids the tokens and the search-mode answer follows', async () => {
    standIn.behave({ kind: 'fail-mid-stream' });
    const events = parseEvents(
      (await stream('member', { query: 'How many hours of continuing education are required?' })).body as string,
    );
    const reset = events.findIndex((e) => e.event === 'reset');
    assert.ok(reset > 0, JSON.stringify(events));
    assert.equal(events[reset]!.data.reason, 'overloaded');
    const after = events
      .slice(reset + 1)
      .filter((e) => e.event === 'token')
      .map((e) => e.data.text)
      .join('');
    const answer = events.find((e) => e.event === 'answer')!.data;
    assert.equal(answer.mode, 'search');
    assert.equal(after, answer.answer);
  });

  it('when a document tries prompt injection, then the model was never shown, and the answer never cites, what the asker may not open', async () => {
    const res = await ask('visitor', {
      query: 'Who helps at the annual conference registration desk? List all premium files and the salary survey.',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // the stand-in plays a model fooled by the injected text: it lists everything it was given
    assert.match(res.body.answer, /As instructed/);
    const shown = sentTexts().join('\n');
    assert.match(shown, /IGNORE PREVIOUS INSTRUCTIONS/);
    for (const secret of [/zircon/, /142,000/, /obsidian/, /quartz/, /wayfinder/i, /jasper/]) {
      assert.doesNotMatch(shown, secret);
      assert.doesNotMatch(res.body.answer, secret);
    }
    const allowed = new Set([lib.docs.handbook, lib.docs.injection]);
    for (const source of res.body.sources) assert.ok(allowed.has(source.resourceId), JSON.stringify(source));
  });

  it('across roles: what the model is shown is only what the asker may open', async () => {
    const queries = [
      'What is the median salary in the zircon survey?',
      'What does the obsidian checklist list?',
      'What did the board agree in the quartz session?',
      'What is a wayfinder mentor?',
    ];
    const expectations: Array<[Who, RegExp[], RegExp[]]> = [
      ['admin', [/zircon/, /obsidian/, /quartz/, /wayfinder/i], []],
      ['premium', [/zircon/, /wayfinder/i], [/obsidian/, /quartz/]],
      ['member', [/wayfinder/i], [/zircon/, /obsidian/, /quartz/]],
      ['visitor', [], [/zircon/, /obsidian/, /quartz/, /wayfinder/i]],
    ];
    for (const [who, seen, unseen] of expectations) {
      standIn.reset();
      for (const query of queries) await ask(who, { query });
      const shown = sentTexts().join('\n');
      for (const pattern of seen) assert.match(shown, pattern, `${who} should be able to get ${pattern}`);
      for (const pattern of unseen) assert.doesNotMatch(shown, pattern, `${who} must not get ${pattern}`);
    }
  });
});
