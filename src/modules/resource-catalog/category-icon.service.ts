// A category's uploaded icon image, the alternative to a named icon from the fixed set. PNG and JPEG
// are resized to fit 256 x 256 and kept as PNG; an SVG is kept as sanitised on upload (and served
// sandboxed). The file is written first under its own new key, the row then points at it in one
// transaction; a failure removes the new file, a success removes the replaced one.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Sequelize, Transaction } from 'sequelize';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { errors } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { ResourceCategory } from '../library/index.ts';
import { resolveReader } from '../library/index.ts';
import type { StoredFile } from '../../http/send-stored-file.ts';
import { inspectStagedFile, type StagedFile } from '../library/index.ts';
import { newTempKey } from '../library/index.ts';
import { findCategory } from './category.repository.ts';

/** Largest icon image accepted (before resizing). */
export const CATEGORY_ICON_MAX_BYTES = 2 * 1024 * 1024;
/** Raster icons are resized to fit a square of this many pixels (never enlarged). */
export const CATEGORY_ICON_PIXELS = 256;

const ICON_FORMATS = ['png', 'jpeg', 'svg'] as const;

const iconKey = (organizationId: string, categoryId: string, extension: 'png' | 'svg') =>
  `orgs/${organizationId}/categories/${categoryId}/icon-${randomUUID()}.${extension}`;

export interface CategoryIconDeps {
  sequelize: Sequelize;
  sql: Sql;
  storage: FileStorage;
  audit: AuditService;
  logger: Logger;
}

export class CategoryIconService {
  constructor(private readonly deps: CategoryIconDeps) {}

  /** 403 for those who may not manage categories, 404 for a category of another organization: before a byte is read. */
  async assertCanChange(actor: Actor, id: string): Promise<void> {
    const scope = scopeFor(actor, 'resourceCategory', 'write');
    if (!(await ResourceCategory.findOne({ where: scope.where({ id }), attributes: ['id'] })))
      throw errors.notFound('resource category', id);
  }

  async set(actor: Actor, id: string, file: StagedFile): Promise<void> {
    const scope = scopeFor(actor, 'resourceCategory', 'write');
    const organizationId = scope.organizationId!;
    const staged = new Set<string>([file.tempKey]);
    let written: string | undefined;
    try {
      const inspected = await inspectStagedFile(this.deps.storage, file, {
        field: 'file',
        allowed: ICON_FORMATS,
        newTempKey: () => {
          const key = newTempKey();
          staged.add(key);
          return key;
        },
      });
      const bytes = await buffer(await this.deps.storage.get(inspected.tempKey));
      const svg = inspected.format === 'svg';
      const content = svg
        ? bytes
        : await (await import('sharp'))
            .default(bytes)
            .resize(CATEGORY_ICON_PIXELS, CATEGORY_ICON_PIXELS, { fit: 'inside', withoutEnlargement: true })
            .png()
            .toBuffer();
      written = iconKey(organizationId, id, svg ? 'svg' : 'png');
      await this.deps.storage.put(written, Readable.from([content]), {
        contentType: svg ? 'image/svg+xml' : 'image/png',
      });
      const replaced = await this.point(actor, id, written);
      written = undefined; // the row owns it now
      if (replaced) await this.remove(replaced);
    } finally {
      if (written) await this.remove(written);
      await Promise.all([...staged].map((key) => this.deps.storage.delete(key).catch(() => undefined)));
    }
  }

  async clear(actor: Actor, id: string): Promise<void> {
    const replaced = await this.point(actor, id, null);
    if (replaced) await this.remove(replaced);
  }

  /** The icon image for anyone who sees the category (members: active categories only). */
  async open(actor: Actor, id: string): Promise<StoredFile> {
    scopeFor(actor, 'resourceCategory', 'read');
    const reader = await resolveReader(this.deps.sql, actor);
    const row = await findCategory(this.deps.sql, reader, id);
    if (!row || (row.archivedAt && reader.standing !== 'manager')) throw errors.notFound('resource category', id);
    if (!row.iconStorageKey) throw errors.notFound('category icon', id);
    const stored = await this.deps.storage.stat(row.iconStorageKey);
    if (!stored) throw errors.notFound('category icon', id);
    const svg = row.iconStorageKey.endsWith('.svg');
    return {
      key: row.iconStorageKey,
      sizeBytes: stored.sizeBytes,
      contentType: svg ? 'image/svg+xml' : 'image/png',
      // each upload gets a new key, so its file name names these exact bytes
      etag: `"${path.posix.basename(row.iconStorageKey, path.posix.extname(row.iconStorageKey))}"`,
      lastModified: row.updatedAt,
      fileName: `category-icon.${svg ? 'svg' : 'png'}`,
      disposition: 'inline',
    };
  }

  /** Points the row at `key` (null: no image) under a row lock; returns the key it replaced. */
  private point(actor: Actor, id: string, key: string | null): Promise<string | null> {
    return this.deps.sequelize.transaction(async (transaction) => {
      const category = await ResourceCategory.findOne({
        where: scopeFor(actor, 'resourceCategory', 'write').where({ id }),
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (!category) throw errors.notFound('resource category', id);
      const replaced = category.iconStorageKey;
      if (key === null && replaced === null) throw errors.notFound('category icon', id);
      category.iconStorageKey = key;
      category.changed('updatedAt', true); // a new image is a change of the category (Last-Modified, ETag of the list)
      await category.save({ transaction });
      await this.audit(actor, category.id, { iconImage: replaced !== null }, { iconImage: key !== null }, transaction);
      return replaced;
    });
  }

  private audit(
    actor: Actor,
    id: string,
    before: Record<string, unknown>,
    after: Record<string, unknown>,
    transaction: Transaction,
  ) {
    return this.deps.audit.record(
      actor,
      { action: 'resource_category.icon_changed', targetType: 'resource_category', targetId: id, before, after },
      transaction,
    );
  }

  private async remove(key: string): Promise<void> {
    await this.deps.storage
      .delete(key)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, key }, 'could not remove a category icon file'));
  }
}
