import type { components } from '../../types/openapi.d.ts';
import type { IngestionView } from './ingestion.service.ts';

export type IngestionStatusDto = components['schemas']['IngestionStatus'];

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

export function toIngestionStatusDto({ resourceId, version, row }: IngestionView): IngestionStatusDto {
  return {
    resourceId,
    version: version.version,
    status: row?.status ?? 'not_started',
    pagesDone: row?.pages_done ?? 0,
    pagesTotal: row?.pages_total ?? null,
    passages: row?.passages ?? 0,
    pageNumbers: row?.page_numbers ?? null,
    embeddingModel: row?.embedding_model ?? null,
    ocrPages: row?.ocr_pages ?? 0,
    ocrConfidence: row?.ocr_confidence ?? null,
    attempts: row?.attempts ?? 0,
    lastError: row?.last_error ?? null,
    queuedAt: iso(row?.queued_at),
    startedAt: iso(row?.started_at),
    finishedAt: iso(row?.finished_at),
    updatedAt: iso(row?.updated_at),
  };
}
