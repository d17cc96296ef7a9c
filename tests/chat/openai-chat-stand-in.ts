// A local stand-in for an OpenAI-compatible chat server (POST /v1/chat/completions, as Ollama,
// llama.cpp's server and vLLM serve it), for tests that drive the real `openai` SDK through its base
// URL. Plain JSON and streamed (SSE) replies, and the failures the chat must survive.
//
// `grounded` plays a model that follows the citation rule: it reads the numbered search results in the
// last user message, quotes the first sentence of the one sharing most words with the question and
// cites it as "[n]". `reply` answers with given text pieces (markers and all, streamed one piece per
// delta), `busy` answers 503, `slow` waits before answering.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatCompletionRequest {
  model: string;
  stream?: boolean;
  max_tokens?: number;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
}

export type Behaviour =
  | { kind: 'grounded' }
  | { kind: 'reply'; parts: string[] }
  | { kind: 'busy' }
  | { kind: 'slow'; delayMs: number };

const COMMON = new Set(
  'the and for are was were with that this have has what when how who does from you your their'.split(' '),
);
const words = (text: string) =>
  new Set((text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !COMMON.has(w)));

/** The numbered results of the last user message: [{n, text}]. */
export function resultsOf(request: ChatCompletionRequest): Array<{ n: number; text: string }> {
  const last = request.messages.at(-1)?.content ?? '';
  return [...last.matchAll(/^\[(\d+)\] ([\s\S]*?)(?=\n\n\[\d+\] |\n\nQuestion: )/gm)].map((m) => ({
    n: Number(m[1]),
    text: m[2]!,
  }));
}

function grounded(request: ChatCompletionRequest): string[] {
  const last = request.messages.at(-1)?.content ?? '';
  const question = words(last.slice(last.lastIndexOf('Question: ')));
  // the sentence of any result sharing most words with the question
  const best = resultsOf(request)
    .flatMap((r) =>
      r.text
        .split('\n')
        .slice(1)
        .join(' ')
        .split(/(?<=[.!?])\s+/)
        .map((sentence) => ({ n: r.n, sentence, shared: [...words(sentence)].filter((w) => question.has(w)).length })),
    )
    .sort((a, b) => b.shared - a.shared)[0];
  if (!best) return ['The library does not answer this.'];
  return ['According to the library, ', `${best.sentence.replace(/[.!?]$/, '')} `, `[${best.n}`, '].'];
}

export class OpenAiChatStandIn {
  readonly requests: ChatCompletionRequest[] = [];
  readonly headers: IncomingMessage['headers'][] = [];
  private behaviour: Behaviour = { kind: 'grounded' };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OpenAiChatStandIn> {
    let standIn: OpenAiChatStandIn | undefined;
    const server = createServer((req, res) => void standIn!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIn = new OpenAiChatStandIn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    return standIn;
  }

  behave(behaviour: Behaviour): void {
    this.behaviour = behaviour;
  }

  reset(): void {
    this.requests.length = 0;
    this.headers.length = 0;
    this.behaviour = { kind: 'grounded' };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionRequest;
    this.requests.push(request);
    this.headers.push(req.headers);
    const behaviour = this.behaviour;
    if (behaviour.kind === 'busy') {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'busy' } }));
      return;
    }
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (res.destroyed) return;
    const parts = behaviour.kind === 'reply' ? behaviour.parts : grounded(request);
    const base = { id: 'chatcmpl-test', created: 0, model: request.model };
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: parts.join('') } }],
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of parts) {
      const chunk = { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: part } }] };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }
}
