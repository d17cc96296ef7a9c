// The library as readers see it: the list and search (GET /api/resources) and the details of one
// resource (which records a view). Both go through the library's one policy (resolveReader), so a
// member, a visitor of the public catalogue and an admin each get exactly what they may see.
import type { Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import { requireResourceAccess, resolveReader, type LibraryReader } from '../library/index.ts';
import { toResourceDto, type ResourceDto } from '../library/index.ts';
import { loadResourceViews } from '../library/index.ts';
import { recordUsage } from '../library/index.ts';
import { parseCatalogQuery } from './catalog.filters.ts';
import { loadContentMatches, searchResourceIds } from './catalog-search.repository.ts';
import { toContentMatches } from './content-match.mapper.ts';

/** `countView: false` for a read nobody sees the content of (a HEAD). */
export interface ResourceRead {
  countView?: boolean;
}
export class ResourceCatalogService {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql }) {}

  reader(actor: Actor): Promise<LibraryReader> {
    return resolveReader(this.deps.sql, actor);
  }

  async list(actor: Actor, query: Readonly<Record<string, unknown>>, page: PageRequest): Promise<Page<ResourceDto>> {
    return this.listFor(await this.reader(actor), query, page);
  }

  /** A page of what the reader sees, filtered and ranked inside the SQL. */
  async listFor(
    reader: LibraryReader,
    query: Readonly<Record<string, unknown>>,
    page: PageRequest,
  ): Promise<Page<ResourceDto>> {
    const search = parseCatalogQuery(query);
    const { ids, total, keyword } = await searchResourceIds(this.deps, reader, search, {
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    const views = await loadResourceViews(this.deps.sql, reader, ids);
    if (!search.text) return pageOf(views.map(toResourceDto), total, page);
    // a keyword search: every item says where its text matched (none when found by metadata alone)
    const matches = toContentMatches(ids, keyword ? await loadContentMatches(this.deps, reader, ids, keyword) : []);
    return pageOf(
      views.map((view) => ({ ...toResourceDto(view), matches: matches.get(view.id) ?? { pageCount: 0, pages: [] } })),
      total,
      page,
    );
  }

  async get(actor: Actor, id: string, read: ResourceRead = {}): Promise<ResourceDto> {
    return this.getFor(await this.reader(actor), id, read);
  }

  /** One resource the reader sees (404 otherwise); each read is a recorded view, unless it is a HEAD. */
  async getFor(reader: LibraryReader, id: string, { countView = true }: ResourceRead = {}): Promise<ResourceDto> {
    await requireResourceAccess(this.deps.sql, reader, id, 'see');
    if (countView) await recordUsage(this.deps.sql, reader, id, 'view');
    const [view] = await loadResourceViews(this.deps.sql, reader, [id]);
    if (!view) throw errors.notFound('resource', id);
    return toResourceDto(view);
  }
}
