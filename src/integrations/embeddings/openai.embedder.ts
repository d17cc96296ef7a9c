// An OpenAI-compatible `/embeddings` provider (OpenAI, Azure OpenAI's v1 API, vLLM, Ollama, LiteLLM ...),
// asked for 512 dimensions so its vectors fit the passages' column; plain `fetch`, no SDK. The model id
// stored with each vector names the provider's model and the dimension (`openai:<model>@512`).
import type { Embedder } from './embedder.ts';
import { PASSAGE_VECTOR_DIMENSIONS } from './embedder.ts';

export interface OpenAiEmbedderOptions {
  /** Base URL up to the API version, e.g. `https://api.openai.com/v1`; `/embeddings` is appended. */
  url: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface EmbeddingsResponse {
  data?: Array<{ index?: number; embedding?: number[] }>;
}

/** The provider refused or failed; the job that asked retries with backoff. */
export class EmbeddingProviderError extends Error {
  override name = 'EmbeddingProviderError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const unit = (vector: number[]): number[] => {
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((x) => x / norm) : vector;
};

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.dimensions = options.dimensions ?? PASSAGE_VECTOR_DIMENSIONS;
    this.model = `openai:${options.model}@${this.dimensions}`;
    this.endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (!texts.length) return [];
    const response = await (this.options.fetch ?? fetch)(this.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.options.model,
        input: texts,
        dimensions: this.dimensions,
        encoding_format: 'float',
      }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
    });
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      throw new EmbeddingProviderError(
        `embeddings provider answered ${response.status}${detail ? `: ${detail}` : ''}`,
        response.status,
      );
    }
    const body = (await response.json()) as EmbeddingsResponse;
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== texts.length)
      throw new EmbeddingProviderError(
        `embeddings provider returned ${data.length} vectors for ${texts.length} inputs`,
      );
    return data.map((item) => {
      const vector = item.embedding;
      if (!Array.isArray(vector) || vector.length !== this.dimensions || !vector.every(Number.isFinite)) {
        throw new EmbeddingProviderError(
          `embeddings provider returned a vector of ${Array.isArray(vector) ? vector.length : 'no'} dimensions, not ${this.dimensions} (does the model accept \`dimensions\`?)`,
        );
      }
      return unit(vector);
    });
  }
}
