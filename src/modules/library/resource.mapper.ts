// The resource's wire shape (components/schemas/Resource). Never res.json(model): the shape is a promise.
import type { components } from '../../types/openapi.d.ts';
import { accessLabels, type AccessLevel } from './access-levels.ts';
import type { ResourceFormat, ResourceStatus, ResourceType } from './resource.model.ts';
import { minorDigitsOf } from '../../shared/currencies.ts';

export type ResourceDto = components['schemas']['Resource'];

/** A resource row joined with its current version and categories, as resource-view.repository.ts reads it. */
export interface ResourceView {
  id: string;
  name: string;
  description: string | null;
  type: ResourceType;
  format: ResourceFormat;
  accessLevel: AccessLevel;
  priceAmount: string | null;
  priceCurrency: string | null;
  status: ResourceStatus;
  publishedAt: Date | null;
  tags: string[];
  categories: Array<{ id: string; name: string }>;
  currentVersion: number;
  file: { name: string; contentType: string; sizeBytes: number; sha256: string; uploadedAt: Date };
  hasThumbnail: boolean;
  hasFeaturedImage: boolean;
  viewCount: number;
  downloadCount: number;
  /** The reader asking may open the file (download, chat, generated media). */
  canOpen: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Amounts as decimal strings with the currency's minor digits (EUR 12.50, JPY 1200, KWD 1.250). */
export function formatAmount(amount: string, currency: string): string {
  return Number(amount).toFixed(minorDigitsOf(currency));
}

export function toResourceDto(view: ResourceView): ResourceDto {
  const base = `/api/resources/${view.id}`;
  return {
    id: view.id,
    name: view.name,
    description: view.description,
    type: view.type,
    format: view.format,
    accessLevel: view.accessLevel,
    accessLabels: accessLabels(view.accessLevel) as ResourceDto['accessLabels'],
    price:
      view.priceAmount !== null && view.priceCurrency !== null
        ? { amount: formatAmount(view.priceAmount, view.priceCurrency), currency: view.priceCurrency }
        : null,
    status: view.status,
    publishedAt: view.publishedAt?.toISOString() ?? null,
    tags: view.tags,
    categories: view.categories,
    currentVersion: view.currentVersion,
    file: { ...view.file, version: view.currentVersion, uploadedAt: view.file.uploadedAt.toISOString() },
    stats: { views: view.viewCount, downloads: view.downloadCount },
    canOpen: view.canOpen,
    links: {
      download: `${base}/download`,
      thumbnail: view.hasThumbnail ? `${base}/thumbnail` : null,
      featuredImage: view.hasFeaturedImage ? `${base}/featured-image` : null,
    },
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
  };
}

export type ResourceVersionDto = components['schemas']['ResourceVersion'];

/** One stored file of a resource (GET /api/resources/{id}/versions). */
export function toResourceVersionDto(
  resourceId: string,
  version: {
    version: number;
    fileName: string;
    contentType: string;
    format: string;
    sizeBytes: number;
    sha256: string;
    current: boolean;
    createdAt: Date;
  },
): ResourceVersionDto {
  return {
    version: version.version,
    fileName: version.fileName,
    contentType: version.contentType,
    format: version.format as ResourceFormat,
    sizeBytes: version.sizeBytes,
    sha256: version.sha256,
    current: version.current,
    createdAt: version.createdAt.toISOString(),
    links: { download: `/api/resources/${resourceId}/versions/${version.version}/download` },
  };
}
