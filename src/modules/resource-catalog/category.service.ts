// Resource categories: members see the active ones in order; client admins (and API keys) create,
// rename, reorder, archive and unarchive them. Archiving hides a category from members and from their
// filters but keeps its links: resources and history stay. Every change is audited.
import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { ResourceCategory } from '../library/index.ts';
import { resolveReader, type LibraryReader } from '../library/index.ts';
import { apiIconUrl, toCategoryDto, type CategoryDto, type CategoryIcon } from './category.mapper.ts';
import { findCategory, findCategoryPage, type ArchivedChoice } from './category.repository.ts';

export interface CategoryInput {
  name: string;
  description?: string | null;
  icon?: CategoryIcon | null;
}

export interface CategoryDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: AuditService;
}

export class ResourceCategoryService {
  constructor(private readonly deps: CategoryDeps) {}

  async list(actor: Actor, archived: ArchivedChoice, page: PageRequest): Promise<Page<CategoryDto>> {
    scopeFor(actor, 'resourceCategory', 'read');
    return this.listFor(await resolveReader(this.deps.sql, actor), archived, page);
  }

  /** Archived categories are the managers' (client admins, API keys); members never see them. */
  async listFor(
    reader: LibraryReader,
    archived: ArchivedChoice,
    page: PageRequest,
    iconUrl = apiIconUrl,
  ): Promise<Page<CategoryDto>> {
    if (archived !== 'exclude' && reader.standing !== 'manager')
      throw errors.forbidden('Only client admins see archived categories');
    const { rows, total } = await findCategoryPage(this.deps.sql, reader, archived, {
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    return pageOf(
      rows.map((row) => toCategoryDto(row, iconUrl)),
      total,
      page,
    );
  }

  async create(actor: Actor, input: CategoryInput): Promise<CategoryDto> {
    const { organizationId } = scopeFor(actor, 'resourceCategory', 'write') as { organizationId: string };
    const id = await this.write(async (transaction) => {
      const last = await ResourceCategory.max<number | null, ResourceCategory>('position', {
        where: { organizationId },
        transaction,
      });
      const category = await ResourceCategory.create(
        {
          organizationId,
          name: input.name.trim(),
          description: input.description ?? null,
          icon: input.icon ?? null,
          position: (last ?? 0) + 1,
        },
        { transaction },
      );
      await this.audit(actor, 'created', category, { after: snapshot(category) }, transaction);
      return category.id;
    });
    return this.get(actor, id);
  }

  /** PUT: name, description and icon are replaced (left out: null); position and archiving have their own operations. */
  async update(actor: Actor, id: string, input: CategoryInput): Promise<CategoryDto> {
    await this.change(actor, id, 'updated', (category) => {
      category.set({ name: input.name.trim(), description: input.description ?? null, icon: input.icon ?? null });
    });
    return this.get(actor, id);
  }

  async archive(actor: Actor, id: string): Promise<CategoryDto> {
    await this.change(actor, id, 'archived', (category) => {
      if (!category.archivedAt) category.archivedAt = this.deps.clock.now();
    });
    return this.get(actor, id);
  }

  async unarchive(actor: Actor, id: string): Promise<CategoryDto> {
    await this.change(actor, id, 'unarchived', (category) => {
      category.archivedAt = null;
    });
    return this.get(actor, id);
  }

  /**
   * The ids given take positions 1..n in that order; the organization's other categories follow in
   * their current order. An id that is not one of the organization's categories is refused (422).
   */
  async reorder(actor: Actor, ids: readonly string[], page: PageRequest): Promise<Page<CategoryDto>> {
    const { organizationId } = scopeFor(actor, 'resourceCategory', 'write') as { organizationId: string };
    const wanted = ids.map((id) => id.toLowerCase());
    if (new Set(wanted).size !== wanted.length)
      throw errors.validation([{ field: 'ids', message: 'lists a category more than once' }]);
    await this.deps.sequelize.transaction(async (transaction) => {
      const known = await this.deps.sql.rows<{ id: string; position: number }>(
        'SELECT id, position FROM resource_categories WHERE organization_id = $1 ORDER BY id FOR UPDATE',
        [organizationId],
        transaction,
      );
      const knownIds = new Set(known.map((row) => row.id));
      const unknown = wanted.filter((id) => !knownIds.has(id));
      if (unknown.length) {
        throw new AppError('unprocessable', `Not categories of this organization: ${unknown.join(', ')}`, {
          errors: [{ field: 'ids', message: `unknown category ids: ${unknown.join(', ')}` }],
        });
      }
      await this.deps.sql.query(
        `WITH wanted AS (SELECT id, ord FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, ord)),
              ranked AS (SELECT c.id, row_number() OVER (ORDER BY w.ord NULLS LAST, c.position, lower(c.name), c.id)::int AS position
                           FROM resource_categories c LEFT JOIN wanted w ON w.id = c.id WHERE c.organization_id = $1)
         UPDATE resource_categories c SET position = ranked.position, updated_at = now()
           FROM ranked WHERE c.id = ranked.id AND c.position <> ranked.position`,
        [organizationId, wanted],
        transaction,
      );
      await this.deps.audit.record(
        actor,
        { action: 'resource_category.reordered', targetType: 'resource_category', after: { order: wanted } },
        transaction,
      );
    });
    return this.list(actor, 'include', page);
  }

  /** One category as the actor sees it (after a change, or the icon upload's answer). */
  async get(actor: Actor, id: string): Promise<CategoryDto> {
    const row = await findCategory(this.deps.sql, await resolveReader(this.deps.sql, actor), id);
    if (!row) throw errors.notFound('resource category', id);
    return toCategoryDto(row);
  }

  private async change(
    actor: Actor,
    id: string,
    what: string,
    apply: (category: ResourceCategory) => void,
  ): Promise<void> {
    const scope = scopeFor(actor, 'resourceCategory', 'write');
    await this.write(async (transaction) => {
      const category = await ResourceCategory.findOne({
        where: scope.where({ id }),
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (!category) throw errors.notFound('resource category', id);
      const before = snapshot(category);
      apply(category);
      if (!category.changed()) return;
      await category.save({ transaction });
      await this.audit(actor, what, category, { before, after: snapshot(category) }, transaction);
    });
  }

  private audit(
    actor: Actor,
    what: string,
    category: ResourceCategory,
    states: { before?: Snapshot; after?: Snapshot },
    transaction: Transaction,
  ) {
    return this.deps.audit.record(
      actor,
      { action: `resource_category.${what}`, targetType: 'resource_category', targetId: category.id, ...states },
      transaction,
    );
  }

  /** One transaction; a name already used in the organization (ignoring case) is a 409 naming the field. */
  private async write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.deps.sequelize.transaction(work);
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
      throw new AppError(
        'already_exists',
        'Another category of this organization has the same name (names are compared ignoring case)',
        {
          errors: [{ field: 'name', message: 'must be unique within the organization, ignoring case' }],
        },
      );
    }
  }
}

type Snapshot = Record<string, unknown>;

const snapshot = (category: ResourceCategory): Snapshot => ({
  name: category.name,
  description: category.description,
  icon: category.icon,
  position: category.position,
  archivedAt: category.archivedAt?.toISOString() ?? null,
});
