// After a model switch (EMBEDDINGS_PROVIDER / EMBEDDINGS_MODEL), passages embedded by another model are
// re-embedded in the background, a bounded number per run. Retrieval meanwhile compares vectors of the
// current model only (`embedding_model = embedder.model`), so the two spaces never mix; passages not
// re-embedded yet are found by their keywords.
import type { Embedder } from '../../integrations/embeddings/embedder.ts';
import { defineJob, payloadOf } from '../../jobs/job.ts';
import type { Logger } from '../../shared/logger.ts';
import { embeddingInput } from './ingestion.pipeline.ts';
import type { IngestionRepository } from './ingestion.repository.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../jobs/job.ts' {
  interface JobPayloads {
    'ingestion.reembed': object;
  }
}

export interface ReembedDeps {
  repository: IngestionRepository;
  embedder: Embedder;
  /** Passages per run; the schedule picks up the rest. */
  maxPassages: number;
  batchSize: number;
}

/** Re-embeds up to `maxPassages` passages of another model (or none); returns how many. */
export async function reembedPassages(deps: ReembedDeps, logger: Logger): Promise<number> {
  const { repository, embedder } = deps;
  if (!(await repository.hasColumn('resource_passages', 'embedding'))) return 0;
  let done = 0;
  while (done < deps.maxPassages) {
    const batch = await repository.passagesOfOtherModels(
      embedder.model,
      Math.min(deps.batchSize, deps.maxPassages - done),
    );
    if (!batch.length) break;
    const vectors = await embedder.embed(batch.map(embeddingInput));
    await repository.storePassageVectors(
      embedder.model,
      batch.map((passage, i) => ({ id: passage.id, vector: vectors[i]! })),
    );
    done += batch.length;
  }
  if (done) logger.info({ reembedded: done, model: embedder.model }, 're-embedded passages of another model');
  return done;
}

export const reembedJob = defineJob({
  name: 'ingestion.reembed',
  payload: payloadOf<object>(),
  schedule: '*/10 * * * *',
  retry: { limit: 2, delaySeconds: 60, backoff: true },
  expireInSeconds: 30 * 60,
  handler:
    (deps: ReembedDeps) =>
    async (_data, { logger }) => {
      await reembedPassages(deps, logger);
    },
});
