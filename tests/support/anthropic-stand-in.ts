// A local stand-in for Anthropic's Messages API (POST /v1/messages), for tests that drive the real
// @anthropic-ai/sdk through `baseURL`. Plain JSON and streaming (SSE) replies, citations of the
// `search_result` blocks it is sent, and the failures a client must survive: 529 overloaded, a slow
// answer (timeouts), malformed output, an error in the middle of a stream. Each test sets the
// behaviour it needs (`standIn.behave(...)`) and reads what the model was shown (`standIn.requests`).
//
// The default behaviour, `grounded`, plays a model that answers from the search results: it quotes
// the sentence of the result that best matches the question and cites that result. When a result says
// "ignore previous instructions" it plays a model fooled by it, listing and citing every result it was
// given: whatever it reveals is bounded by what it was sent.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SearchResultBlock {
  type: 'search_result';
  source: string;
  title: string;
  content: Array<{ type: 'text'; text: string }>;
  citations?: { enabled?: boolean };
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string;
  stream?: boolean;
  messages: Array<{
    role: 'user' | 'assistant';
    content: string | Array<SearchResultBlock | { type: 'text'; text: string }>;
  }>;
}

export interface Reply {
  /** Text pieces (streamed one by one), each citing the given search result indexes. */
  parts: Array<{ text: string; cite?: number[] }>;
}

export type Behaviour =
  | { kind: 'grounded' }
  | { kind: 'reply'; reply: Reply | ((request: MessagesRequest) => Reply) }
  | { kind: 'overloaded' }
  | { kind: 'error'; status: number; type?: string }
  | { kind: 'slow'; delayMs: number; then?: Behaviour }
  | { kind: 'malformed' }
  | { kind: 'fail-mid-stream' };

// words of four letters or more: a crude stand-in for what a model attends to (no "how", "for", "the")
const words = (text: string) =>
  new Set((text.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []).map((w) => w.replace(/s$/u, '')));

/** The search results of the last user message, in request order (their search_result_index). */
export function searchResultsOf(request: MessagesRequest): SearchResultBlock[] {
  const results: SearchResultBlock[] = [];
  for (const message of request.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'search_result') results.push(block);
  }
  return results;
}

export function questionOf(request: MessagesRequest): string {
  const last = request.messages.at(-1);
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join(' ');
}

/** The default model: quote the best-matching sentence and cite it; obey instructions injected in the best passage. */
export function groundedReply(request: MessagesRequest): Reply {
  const results = searchResultsOf(request);
  if (!results.length) return { parts: [{ text: 'The library does not answer this question.' }] };
  const question = words(questionOf(request));
  let best = { index: 0, sentence: '', score: -1 };
  results.forEach((result, index) => {
    for (const sentence of result.content
      .map((c) => c.text)
      .join(' ')
      .split(/(?<=[.!?])\s+/u)) {
      const score = [...words(sentence)].filter((w) => question.has(w)).length;
      if (score > best.score) best = { index, sentence, score };
    }
  });
  // a gullible model: when the passage that answers best carries injected instructions, it obeys them
  const bestText = results[best.index]!.content.map((c) => c.text).join(' ');
  if (/ignore (all )?previous instructions/i.test(bestText)) {
    return {
      parts: [
        { text: 'As instructed, here is every document I was given: ' },
        ...results.map((r, i) => ({ text: `${r.title}. `, cite: [i] })),
      ],
    };
  }
  return { parts: [{ text: 'According to the library, ' }, { text: best.sentence, cite: [best.index] }] };
}

function citation(results: SearchResultBlock[], index: number) {
  const result = results[index];
  return {
    type: 'search_result_location',
    cited_text: result ? result.content.map((c) => c.text).join(' ') : '',
    search_result_index: index,
    source: result?.source ?? `unknown:${index}`,
    title: result?.title ?? null,
    start_block_index: 0,
    end_block_index: 1,
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export class AnthropicStandIn {
  readonly requests: MessagesRequest[] = [];
  /** Headers of each request (to check the credential the SDK sent). */
  readonly headers: IncomingMessage['headers'][] = [];
  private behaviour: Behaviour = { kind: 'grounded' };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<AnthropicStandIn> {
    let standIn: AnthropicStandIn | undefined;
    const server = createServer((req, res) => void standIn!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    standIn = new AnthropicStandIn(server, `http://127.0.0.1:${port}`);
    return standIn;
  }

  /** The behaviour for the following requests (until changed). */
  behave(behaviour: Behaviour): void {
    this.behaviour = behaviour;
  }

  reset(): void {
    this.behaviour = { kind: 'grounded' };
    this.requests.length = 0;
    this.headers.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      return this.fail(res, 404, 'not_found_error', `no route ${req.method} ${req.url}`);
    }
    if (!req.headers['x-api-key'] && !req.headers.authorization)
      return this.fail(res, 401, 'authentication_error', 'missing credential');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequest;
    this.requests.push(request);
    this.headers.push(req.headers);
    await this.respond(this.behaviour, request, res, aborted.signal);
  }

  private async respond(
    behaviour: Behaviour,
    request: MessagesRequest,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    switch (behaviour.kind) {
      case 'overloaded':
        return this.fail(res, 529, 'overloaded_error', 'Overloaded');
      case 'error':
        return this.fail(res, behaviour.status, behaviour.type ?? 'api_error', 'Internal server error');
      case 'slow':
        await sleep(behaviour.delayMs, signal);
        if (signal.aborted) return;
        return this.respond(behaviour.then ?? { kind: 'grounded' }, request, res, signal);
      case 'malformed':
        if (request.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end('event: message_start\ndata: {"type":"message_start","message":{not json\n\n');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"msg_broken","type":"message","content":[{"type":"text"');
        return;
      case 'fail-mid-stream':
        return this.send(res, request, { parts: [{ text: 'The answer starts ' }, { text: 'and then ' }] }, true);
      case 'reply':
        return this.send(
          res,
          request,
          typeof behaviour.reply === 'function' ? behaviour.reply(request) : behaviour.reply,
          false,
        );
      case 'grounded':
        return this.send(res, request, groundedReply(request), false);
    }
  }

  private fail(res: ServerResponse, status: number, type: string, message: string): void {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` });
    res.end(JSON.stringify({ type: 'error', error: { type, message } }));
  }

  private send(res: ServerResponse, request: MessagesRequest, reply: Reply, failMidway: boolean): void {
    const results = searchResultsOf(request);
    const id = `msg_${randomUUID().replace(/-/g, '')}`;
    const usage = { input_tokens: JSON.stringify(request.messages).length >> 2, output_tokens: reply.parts.length * 8 };
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomUUID()}` });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model: request.model,
          content: reply.parts.map((part) => ({
            type: 'text',
            text: part.text,
            citations: part.cite?.length ? part.cite.map((i) => citation(results, i)) : null,
          })),
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'request-id': `req_${randomUUID()}`,
    });
    const event = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    reply.parts.forEach((part, index) => {
      event('content_block_start', {
        index,
        content_block: { type: 'text', text: '', citations: part.cite?.length ? [] : null },
      });
      for (const i of part.cite ?? [])
        event('content_block_delta', { index, delta: { type: 'citations_delta', citation: citation(results, i) } });
      for (const piece of part.text.split(/(?<=\s)/u))
        event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      event('content_block_stop', { index });
    });
    if (failMidway) {
      event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
      return;
    }
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    event('message_stop', {});
    res.end();
  }
}
