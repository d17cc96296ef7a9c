import type { components } from '../../types/openapi.d.ts';
import type { ApiKey } from './api-key.model.ts';

export type ApiKeyDto = components['schemas']['ApiKey'];

/** What the mapper needs: a model instance or a plain row with the same attribute names. */
export type ApiKeyRow = Pick<ApiKey, 'id' | 'name' | 'prefix' | 'createdAt' | 'lastUsedAt' | 'revokedAt'>;

export function toApiKeyDto(apiKey: ApiKeyRow): ApiKeyDto {
  return {
    id: apiKey.id,
    name: apiKey.name,
    prefix: apiKey.prefix,
    createdAt: apiKey.createdAt.toISOString(),
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    revokedAt: apiKey.revokedAt?.toISOString() ?? null,
  };
}
