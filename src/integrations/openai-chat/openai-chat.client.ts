// A chat model behind an OpenAI-compatible `/chat/completions` API (Ollama, llama.cpp's server, vLLM,
// LiteLLM, OpenAI), through the `openai` SDK, for associations that keep their documents on their own
// machines. Same contract as the Claude client (GroundedRequest in, GroundedAnswer or chunks out,
// failures as AnthropicUnavailable with a reason), so the chat uses either the same way.
//
// These APIs have no citation blocks: the passages are numbered [1]..[n] in the user message and the
// model must cite them with those markers. The markers are read back into passage indexes and removed
// from the text. An answer that cites nothing valid is `malformed`, and the chat answers in search mode
// instead: an uncited answer rests on nothing the asker can check.
import OpenAI from 'openai';
import {
  AnthropicUnavailable,
  type GroundedAnswer,
  type GroundedChunk,
  type GroundedRequest,
} from '../anthropic/anthropic.client.ts';

export interface OpenAiChatSettings {
  /** Base address of the API, `/chat/completions` is appended (e.g. http://127.0.0.1:11434/v1 for Ollama). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

const CITATION_RULE =
  'The search results are numbered [1], [2], ... Cite every claim with the number of the result it comes from, ' +
  'in square brackets, e.g. "Dues are 180 dollars [1]." An answer without such citations is discarded.';

/** A citation marker: [1], [2, 3] or [1][2]. */
const MARKER = /\s*\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** The markers' passage indexes (0-based, valid ones only, in order of first citation) and the text without them. */
export function readCitations(text: string, passages: number): { text: string; cited: number[] } {
  const cited: number[] = [];
  const stripped = text.replace(MARKER, (_, list: string) => {
    for (const n of list.split(',').map((v) => Number(v.trim()))) {
      // a number outside what was sent cites nothing the asker may read: dropped
      if (Number.isInteger(n) && n >= 1 && n <= passages && !cited.includes(n - 1)) cited.push(n - 1);
    }
    return '';
  });
  return { text: stripped.trim(), cited };
}

function classify(error: unknown): AnthropicUnavailable {
  if (error instanceof AnthropicUnavailable) return error;
  if (
    error instanceof OpenAI.APIConnectionTimeoutError ||
    error instanceof OpenAI.APIUserAbortError ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
  )
    return new AnthropicUnavailable('timeout', 'The chat model did not answer in time', { cause: error });
  if (error instanceof OpenAI.APIError && (error.status === 429 || error.status === 503 || error.status === 529))
    return new AnthropicUnavailable('overloaded', 'The chat model is overloaded', { cause: error });
  if (error instanceof SyntaxError)
    return new AnthropicUnavailable('malformed', 'The chat model answered with malformed output', { cause: error });
  return new AnthropicUnavailable('error', error instanceof Error ? error.message : 'The chat model failed', {
    cause: error,
  });
}

export class OpenAiChatClient {
  private readonly client: OpenAI;

  constructor(private readonly settings: OpenAiChatSettings) {
    // no SDK retries, as for Claude: search mode is the better answer to a slow or busy model
    this.client = new OpenAI({
      apiKey: settings.apiKey || 'none',
      baseURL: settings.baseUrl,
      timeout: settings.timeoutMs,
      maxRetries: 0,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  private messages(request: GroundedRequest): OpenAI.Chat.Completions.ChatCompletionMessageParam[] {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: `${request.system} ${CITATION_RULE}` },
    ];
    for (const turn of request.history)
      messages.push(
        { role: 'user', content: turn.question },
        { role: 'assistant', content: turn.answer || '(no answer)' },
      );
    const results = request.passages.map((passage, i) => `[${i + 1}] ${passage.title}\n${passage.text}`).join('\n\n');
    messages.push({ role: 'user', content: `Search results:\n\n${results}\n\nQuestion: ${request.question}` });
    return messages;
  }

  /** One answer with its citations. Throws AnthropicUnavailable. */
  async answer(request: GroundedRequest): Promise<GroundedAnswer> {
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        { model: this.settings.model, max_tokens: request.maxTokens ?? 1024, messages: this.messages(request) },
        { signal },
      );
    } catch (error) {
      throw classify(error);
    }
    const content = completion?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || !content.trim())
      throw new AnthropicUnavailable('malformed', 'The chat model answered with no text');
    const answer = readCitations(content, request.passages.length);
    if (!answer.cited.length) throw new AnthropicUnavailable('malformed', 'The chat model cited no search result');
    return answer;
  }

  /**
   * The answer as it is written: text (markers removed) and citations. A marker split across deltas is
   * held back until it closes. Throws AnthropicUnavailable, possibly mid-stream, and at the end when
   * nothing was cited.
   */
  async *stream(request: GroundedRequest): AsyncGenerator<GroundedChunk> {
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    let pending = '';
    const cited: number[] = [];
    let wrote = false;
    function* flush(final: boolean): Generator<GroundedChunk> {
      // keep back an unfinished "[12" (or trailing spaces before it) until the next delta
      const open = final ? -1 : pending.search(/\s*\[[\d,\s]*$/u);
      const ready = open >= 0 ? pending.slice(0, open) : pending;
      pending = open >= 0 ? pending.slice(open) : '';
      const { cited: indexes } = readCitations(ready, request.passages.length);
      const text = ready.replace(MARKER, '');
      if (text) {
        wrote ||= text.trim().length > 0;
        yield { type: 'text', text };
      }
      for (const index of indexes)
        if (!cited.includes(index)) {
          cited.push(index);
          yield { type: 'citation', index };
        }
    }
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.settings.model,
          max_tokens: request.maxTokens ?? 1024,
          messages: this.messages(request),
          stream: true,
        },
        { signal },
      );
      for await (const chunk of stream) {
        const delta = chunk?.choices?.[0]?.delta?.content;
        if (delta === undefined || delta === null) continue;
        if (typeof delta !== 'string') throw new AnthropicUnavailable('malformed', 'a delta without text');
        pending += delta;
        yield* flush(false);
      }
      yield* flush(true);
    } catch (error) {
      throw classify(error);
    }
    if (!wrote) throw new AnthropicUnavailable('malformed', 'The chat model streamed no text');
    if (!cited.length) throw new AnthropicUnavailable('malformed', 'The chat model cited no search result');
  }
}
