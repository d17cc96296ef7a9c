// A resource category on the wire (components/schemas/ResourceCategory).
import type { components } from '../../types/openapi.d.ts';

export type CategoryDto = components['schemas']['ResourceCategory'];

/**
 * The icons a category may name (the client portal draws them). A fixed set, so a category never
 * points at something a client cannot show.
 */
export const CATEGORY_ICONS = [
  'book',
  'document',
  'video',
  'audio',
  'image',
  'folder',
  'star',
  'calendar',
  'chart',
  'lightbulb',
  'graduation-cap',
  'megaphone',
  'briefcase',
  'globe',
  'heart',
  'tools',
] as const;
export type CategoryIcon = (typeof CATEGORY_ICONS)[number];

export interface CategoryRow {
  id: string;
  name: string;
  description: string | null;
  icon: CategoryIcon | null;
  /** Where an uploaded icon image is stored, if one was uploaded. */
  iconStorageKey: string | null;
  position: number;
  archivedAt: Date | null;
  resourceCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Where an uploaded icon image is served to the authenticated API's callers. */
export const apiIconUrl = (categoryId: string) => `/api/resources/categories/${categoryId}/icon`;

/** `iconUrl`: where this caller fetches icon images (the public catalogue serves them under its own path). */
export function toCategoryDto(row: CategoryRow, iconUrl: (categoryId: string) => string = apiIconUrl): CategoryDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    icon: row.icon,
    iconImageUrl: row.iconStorageKey ? iconUrl(row.id) : null,
    position: row.position,
    archived: row.archivedAt !== null,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    resourceCount: row.resourceCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
