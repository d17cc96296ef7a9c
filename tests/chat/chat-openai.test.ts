// The chat with an OpenAI-compatible model (CHAT_PROVIDER=openai: Ollama, llama.cpp's server, vLLM),
// driven through the real `openai` SDK against a local stand-in: the passages go numbered, the model's
// "[n]" markers become the sources and leave the text, plain and streamed (a marker split across two
// deltas included); an answer citing nothing, or nothing it was sent, a busy server and a slow one fall
// back to search mode. The model only sees passages the asker may open.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { bearer, tokenFor } from '../factories/index.ts';
import { textBody } from '../setup/body-parsers.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { parseEvents } from '../support/sse.ts';
import { buildLibrary, type LibraryFixture } from './library-fixture.ts';
import { OpenAiChatStandIn, resultsOf } from './openai-chat-stand-in.ts';

type Who = keyof LibraryFixture['users'];
const TIMEOUT_MS = 1000;
const REFUND = 'How long do I have to ask for a refund of my dues?';

describe('library chat, with an OpenAI-compatible model (stand-in)', () => {
  let t: TestApp;
  let lib: LibraryFixture;
  let standIn: OpenAiChatStandIn;
  const tokens = {} as Record<Who, string>;

  before(async () => {
    standIn = await OpenAiChatStandIn.start();
    t = await startTestApp({
      env: {
        CHAT_PROVIDER: 'openai',
        OPENAI_CHAT_URL: standIn.url,
        OPENAI_CHAT_API_KEY: 'local-key',
        OPENAI_CHAT_MODEL: 'llama-test',
        OPENAI_CHAT_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    lib = await buildLibrary(t);
    for (const who of ['member', 'visitor'] as Who[]) tokens[who] = await tokenFor(t, lib.users[who]);
  });
  beforeEach(() => standIn.reset());
  after(async () => {
    await t?.close();
    await standIn?.close();
  });

  const ask = (who: Who, body: object) => t.http.post('/api/resources/chat').set(bearer(tokens[who])).send(body);

  it('when the model cites a numbered result, then the source is that passage and the marker leaves the text', async () => {
    const res = await ask('member', { query: REFUND });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.mode, 'ai');
    assert.equal(res.body.fallbackReason, null);
    assert.match(res.body.answer, /^According to the library, .*30 days/);
    assert.doesNotMatch(res.body.answer, /\[\d/);
    assert.equal(res.body.sources.length, 1);
    assert.equal(res.body.sources[0].resourceId, lib.docs.handbook);
    assert.equal(res.body.sources[0].pageNumber, 2);
    const [request] = standIn.requests;
    assert.equal(request!.model, 'llama-test');
    assert.match(request!.messages[0]!.content, /ONLY the search results.*square brackets/s);
    assert.ok(resultsOf(request!).length >= 1);
    assert.equal(standIn.headers[0]!.authorization, 'Bearer local-key');
  });

  it('when streaming and a marker is split across deltas, then the tokens carry no marker and the answer cites the passage', async () => {
    const res = await ask('member', { query: REFUND }).set('Accept', 'text/event-stream').buffer(true).parse(textBody);
    assert.equal(res.status, 200);
    const events = parseEvents(res.body as string);
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text as string);
    const answer = events.find((e) => e.event === 'answer')!.data;
    assert.equal(answer.mode, 'ai');
    assert.equal(tokens.join('').trim(), answer.answer);
    assert.ok(!tokens.some((token) => /[[\]]/.test(token)), tokens.join('|'));
    assert.equal(answer.sources[0].pageNumber, 2);
    assert.equal(standIn.requests[0]!.stream, true);
  });

  for (const [name, parts] of [
    ['cites nothing', ['Members can get their dues back within a month.']],
    ['cites only a result it was never sent', ['Members can get their dues back within a month [57].']],
  ] as const) {
    it(`when the model ${name}, then the answer comes in search mode (malformed)`, async () => {
      standIn.behave({ kind: 'reply', parts: [...parts] });
      const res = await ask('member', { query: REFUND });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mode, 'search');
      assert.equal(res.body.fallbackReason, 'malformed');
      assert.match(res.body.answer, /30 days/);
      assert.equal(res.body.sources[0].pageNumber, 2);
    });
  }

  it('when the model cites nothing while streaming, then the streamed tokens are reset and the search answer follows', async () => {
    standIn.behave({ kind: 'reply', parts: ['Members can get ', 'their dues back.'] });
    const res = await ask('member', { query: REFUND }).set('Accept', 'text/event-stream').buffer(true).parse(textBody);
    const events = parseEvents(res.body as string);
    const reset = events.find((e) => e.event === 'reset');
    assert.equal(reset?.data.reason, 'malformed');
    const answer = events.find((e) => e.event === 'answer')!.data;
    assert.equal(answer.mode, 'search');
    assert.match(answer.answer, /30 days/);
  });

  for (const [name, behaviour, reason] of [
    ['busy (503)', { kind: 'busy' }, 'overloaded'],
    ['too slow (timeout)', { kind: 'slow', delayMs: TIMEOUT_MS * 3 }, 'timeout'],
  ] as const) {
    it(`when the server is ${name}, then the answer comes in search mode`, async () => {
      standIn.behave(behaviour);
      const res = await ask('member', { query: REFUND });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mode, 'search');
      assert.equal(res.body.fallbackReason, reason);
      assert.equal(res.body.sources[0].pageNumber, 2);
    });
  }

  it('when a visitor asks about a members-only page, then the model is never sent it', async () => {
    await ask('visitor', { query: 'What is the median salary in the zircon survey?' });
    const sent = standIn.requests.flatMap((request) => resultsOf(request).map((r) => r.text)).join('\n');
    assert.doesNotMatch(sent, /zircon|142,000/);
  });
});
