// A thin typed client over @anthropic-ai/sdk for grounded, cited answers. The passages go to the
// Messages API as `search_result` content blocks with citations enabled, so every claim the model
// makes comes back with a `search_result_location` naming the block (search_result_index) it rests
// on; callers map those indexes back to their passages. Failures come out as one error type with a
// reason (overloaded, timeout, error, malformed) so the caller can fall back instead of failing.
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageParam,
  SearchResultBlockParam,
  TextBlockParam,
  TextCitation,
} from '@anthropic-ai/sdk/resources/messages/messages';

export interface AnthropicSettings {
  apiKey: string;
  baseUrl?: string;
  model: string;
  timeoutMs: number;
}

export interface GroundingPassage {
  /** Stable identifier shown to the model as the result's source. */
  source: string;
  title: string;
  text: string;
}

export interface GroundedRequest {
  system: string;
  /** Earlier turns, oldest first, for follow-up questions. */
  history: ReadonlyArray<{ question: string; answer: string }>;
  passages: readonly GroundingPassage[];
  question: string;
  maxTokens?: number;
}

export interface GroundedAnswer {
  text: string;
  /** Indexes into `passages` of the blocks the answer cites, in order of first citation. */
  cited: number[];
}

export type GroundedChunk = { type: 'text'; text: string } | { type: 'citation'; index: number };

export type AnthropicFailureReason = 'overloaded' | 'timeout' | 'error' | 'malformed';

export class AnthropicUnavailable extends Error {
  constructor(
    readonly reason: AnthropicFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AnthropicUnavailable';
  }
}

function classify(error: unknown): AnthropicUnavailable {
  if (error instanceof AnthropicUnavailable) return error;
  if (error instanceof Anthropic.APIConnectionTimeoutError)
    return new AnthropicUnavailable('timeout', 'Claude did not answer in time', { cause: error });
  if (
    error instanceof Error &&
    (error.name === 'AbortError' || error.name === 'TimeoutError' || error instanceof Anthropic.APIUserAbortError)
  ) {
    return new AnthropicUnavailable('timeout', 'Claude did not answer in time', { cause: error });
  }
  if (
    error instanceof Anthropic.APIError &&
    (error.status === 529 ||
      (error.error as { error?: { type?: string } } | undefined)?.error?.type === 'overloaded_error')
  ) {
    return new AnthropicUnavailable('overloaded', 'Claude is overloaded', { cause: error });
  }
  if (error instanceof SyntaxError)
    return new AnthropicUnavailable('malformed', 'Claude answered with malformed output', { cause: error });
  return new AnthropicUnavailable('error', error instanceof Error ? error.message : 'Claude failed', { cause: error });
}

export class AnthropicClient {
  /** The SDK client itself, for callers that write their own requests (podcast scripts); a failed job is retried by the queue. */
  readonly client: Anthropic;

  constructor(private readonly settings: AnthropicSettings) {
    // No SDK retries: the chat has a better answer to an overloaded or slow model than waiting
    // (search mode, at once), and a retry would double the time to that answer.
    this.client = new Anthropic({
      apiKey: settings.apiKey,
      baseURL: settings.baseUrl,
      timeout: settings.timeoutMs,
      maxRetries: 0,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  private body(request: GroundedRequest) {
    const messages: MessageParam[] = [];
    for (const turn of request.history) {
      messages.push(
        { role: 'user', content: turn.question },
        { role: 'assistant', content: turn.answer || '(no answer)' },
      );
    }
    const results: SearchResultBlockParam[] = request.passages.map((passage) => ({
      type: 'search_result',
      source: passage.source,
      title: passage.title,
      content: [{ type: 'text', text: passage.text }],
      citations: { enabled: true },
    }));
    const question: TextBlockParam = { type: 'text', text: request.question };
    messages.push({ role: 'user', content: [...results, question] });
    return { model: this.settings.model, max_tokens: request.maxTokens ?? 1024, system: request.system, messages };
  }

  /** One answer with its citations. Throws AnthropicUnavailable. */
  async answer(request: GroundedRequest): Promise<GroundedAnswer> {
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    let message: Anthropic.Message;
    try {
      message = await this.client.messages.create(this.body(request), { signal });
    } catch (error) {
      throw classify(error);
    }
    return readAnswer(message, request.passages.length);
  }

  /** The answer as it is written: text deltas and citations. Throws AnthropicUnavailable (possibly mid-stream). */
  async *stream(request: GroundedRequest): AsyncGenerator<GroundedChunk> {
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    let wrote = false;
    try {
      const stream = this.client.messages.stream(this.body(request), { signal });
      for await (const event of stream) {
        if (event.type !== 'content_block_delta') continue;
        if (event.delta.type === 'text_delta') {
          if (typeof event.delta.text !== 'string')
            throw new AnthropicUnavailable('malformed', 'a text delta without text');
          if (event.delta.text) wrote = true;
          yield { type: 'text', text: event.delta.text };
        } else if (event.delta.type === 'citations_delta') {
          const index = citedIndex(event.delta.citation, request.passages.length);
          if (index !== null) yield { type: 'citation', index };
        }
      }
    } catch (error) {
      throw classify(error);
    }
    if (!wrote) throw new AnthropicUnavailable('malformed', 'Claude streamed no text');
  }
}

function citedIndex(citation: TextCitation | undefined, passages: number): number | null {
  if (!citation || citation.type !== 'search_result_location') return null;
  const index = citation.search_result_index;
  // an index outside what was sent is not a citation of anything the asker may read: dropped
  return Number.isInteger(index) && index >= 0 && index < passages ? index : null;
}

function readAnswer(message: Anthropic.Message, passages: number): GroundedAnswer {
  if (!message || !Array.isArray(message.content))
    throw new AnthropicUnavailable('malformed', 'Claude answered without content');
  let text = '';
  const cited: number[] = [];
  for (const block of message.content) {
    if (block.type !== 'text') continue;
    if (typeof block.text !== 'string') throw new AnthropicUnavailable('malformed', 'a text block without text');
    text += block.text;
    for (const citation of block.citations ?? []) {
      const index = citedIndex(citation, passages);
      if (index !== null && !cited.includes(index)) cited.push(index);
    }
  }
  if (!text.trim()) throw new AnthropicUnavailable('malformed', 'Claude answered with no text');
  return { text: text.trim(), cited };
}
