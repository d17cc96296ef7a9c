import type { components } from '../../types/openapi.d.ts';
import type { GeneratedContent } from './generated-content.model.ts';

export type GeneratedContentDto = components['schemas']['GeneratedContent'];

const base = (resourceId: string) => `/api/resources/${resourceId}`;

/** The record as readers see it; file links only once a complete output exists. */
export function toGeneratedContentDto(record: GeneratedContent): GeneratedContentDto {
  const root = base(record.resourceId);
  const keys = record.storageKeys ?? {};
  const links: GeneratedContentDto['links'] = { self: `${root}/${record.kind}`, source: root };
  if (keys.audio) links.audio = `${root}/podcast/audio`;
  if (keys.svg) links.svg = `${root}/infographic.svg`;
  if (keys.png) links.png = `${root}/infographic.png`;
  const dto: GeneratedContentDto = {
    id: record.id,
    resourceId: record.resourceId,
    kind: record.kind,
    status: record.status,
    progress: record.progress,
    error: record.error ?? null,
    aiGenerated: true,
    label: 'AI-generated',
    sourceVersion: record.sourceVersion ?? null,
    requestedAt: record.requestedAt.toISOString(),
    generatedAt: record.generatedAt ? record.generatedAt.toISOString() : null,
    links,
  };
  if (record.kind === 'podcast') {
    dto.scriptSource = record.scriptSource ?? null;
    dto.durationSeconds = record.durationSeconds ?? null;
    dto.voices = record.voices ?? null;
    dto.transcript = record.transcript ?? null;
  } else {
    dto.altText = record.altText ?? null;
  }
  return dto;
}
