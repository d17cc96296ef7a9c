import type { AiSettings } from '../../config.ts';
import type { Embedder } from './embedder.ts';
import { OpenAiEmbedder } from './openai.embedder.ts';
import { UseLiteEmbedder } from './use-lite.embedder.ts';

/** The configured embedder: USE-lite (offline, default) or an OpenAI-compatible /embeddings provider. */
export function createEmbedder(settings: AiSettings['embeddings']): Embedder {
  if (settings.provider === 'openai')
    return new OpenAiEmbedder({ url: settings.url, apiKey: settings.apiKey, model: settings.model });
  return new UseLiteEmbedder();
}
