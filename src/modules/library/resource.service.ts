// The library's write side: create (a file, or a finished resumable upload), update (metadata, and a
// new file as a new version), delete (row, then every file under the resource's prefix); reading files
// is resource-files.service.ts. Writes check `scopeFor(actor, 'resource', 'write')` first. A file is staged at a
// temporary key, its type decided from its bytes, the rows committed with the domain event and the
// audit entry, and only then promoted to its final key; any failure removes the staged bytes.
import { randomUUID } from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import type { Clock } from '../../shared/clock.ts';
import { errors } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import type { AccessLevel } from './access-levels.ts';
import { type Price, priceRefusal } from './resource-price.ts';
import { libraryReader } from './resource.access.ts';
import { checkCategories, linkCategories } from './resource-category-links.repository.ts';
import { toResourceDto, type ResourceDto } from './resource.mapper.ts';
import { Resource, RESOURCE_FORMATS, type ResourceStatus } from './resource.model.ts';
import { ResourceVersion } from './resource-version.model.ts';
import { loadResourceViews, requireOwnResource } from './resource-view.repository.ts';
import type { InspectedFile, StagedFile } from './upload/file-inspection.ts';
import { StagedFiles } from './upload/staged-files.ts';
import type { CompletedUploads } from './uploads/completed-upload.ts';

export interface ResourceMetadataInput {
  name?: string;
  /** null clears it. */
  description?: string | null;
  categoryIds?: string[];
  tags?: string[];
  accessLevel?: AccessLevel;
  /** Required when the level is paid, refused otherwise; null clears it. */
  price?: Price | null;
  /** One half of the price (a change of the amount or the currency only): paired with the stored other half. */
  pricePart?: Partial<Price>;
  status?: ResourceStatus;
}

export interface ResourceFileInput {
  /** A file part staged by the upload route. */
  file?: StagedFile;
  /** Instead of a file part: a finished resumable upload (POST /api/uploads). */
  uploadId?: string;
  /** PNG or JPEG shown with the resource. */
  featuredImage?: StagedFile;
}

export type CreateResourceInput = ResourceMetadataInput & ResourceFileInput & { name: string };
export type UpdateResourceInput = ResourceMetadataInput & ResourceFileInput;

export interface ResourceEvents {
  publish(actor: Actor, type: string, data: object, transaction: Transaction): Promise<void>;
}

export interface ResourceServiceDeps {
  sequelize: Sequelize;
  sql: Sql;
  storage: FileStorage;
  audit: AuditService;
  events: ResourceEvents;
  clock: Clock;
  logger: Logger;
  /** Finished resumable uploads (lib-storage); absent: `uploadId` is refused. */
  uploads?: CompletedUploads;
}

const FILE_FORMATS = RESOURCE_FORMATS;
const IMAGE_FORMATS = ['png', 'jpeg'] as const;

/** Every file a resource owns lives under this prefix (docs/library.md). */
export const resourcePrefix = (organizationId: string, resourceId: string) =>
  `orgs/${organizationId}/resources/${resourceId}/`;

const versionKey = (organizationId: string, resourceId: string, version: number) =>
  `${resourcePrefix(organizationId, resourceId)}v${version}-${randomUUID()}`;
const featuredKey = (organizationId: string, resourceId: string, format: string) =>
  `${resourcePrefix(organizationId, resourceId)}featured-${randomUUID()}.${format === 'jpeg' ? 'jpg' : format}`;

export class ResourceService {
  constructor(private readonly deps: ResourceServiceDeps) {}

  /** The write permission and tenant, checked by the upload route before it reads a byte of the body. */
  assertCanWrite(actor: Actor): void {
    scopeFor(actor, 'resource', 'write');
  }

  async create(actor: Actor, input: CreateResourceInput): Promise<ResourceDto> {
    const scope = scopeFor(actor, 'resource', 'write');
    const organizationId = scope.organizationId!;
    const staged = this.staged(input);
    try {
      if (input.file && input.uploadId)
        throw errors.validation([{ field: 'uploadId', message: 'send either a file part or an uploadId, not both' }]);
      const accessLevel = input.accessLevel ?? 'members';
      if (input.pricePart) throw errors.validation([halfMissing(input.pricePart)]);
      const price = input.price ?? null;
      assertPriceMatchesLevel(accessLevel, price);
      const source = input.file ?? (input.uploadId ? await staged.takeUpload(actor, input.uploadId) : undefined);
      if (!source)
        throw errors.validation([
          { field: 'file', message: 'is required (a file part, or the uploadId of a finished resumable upload)' },
        ]);
      const file = await staged.inspect(source, 'file', FILE_FORMATS);
      const image = input.featuredImage
        ? await staged.inspect(input.featuredImage, 'featuredImage', IMAGE_FORMATS)
        : undefined;
      const id = randomUUID();
      const status = input.status ?? 'draft';
      const now = this.deps.clock.now();
      const key = versionKey(organizationId, id, 1);
      const imageKey = image ? featuredKey(organizationId, id, image.format) : null;
      const dto = await this.deps.sequelize.transaction(async (transaction) => {
        const categoryIds = await checkCategories(this.deps.sql, organizationId, input.categoryIds ?? [], transaction);
        await Resource.create(
          {
            id,
            organizationId,
            name: input.name,
            description: input.description ?? null,
            type: file.type,
            format: file.format,
            accessLevel,
            priceAmount: price?.amount ?? null,
            priceCurrency: price?.currency ?? null,
            status,
            publishedAt: status === 'published' ? now : null,
            tags: input.tags ?? [],
            featuredImageKey: imageKey,
            currentVersion: 1,
            createdBy: userIdOf(actor),
            updatedBy: userIdOf(actor),
          },
          { transaction },
        );
        await this.addVersion(actor, organizationId, id, 1, key, file, transaction);
        await linkCategories(this.deps.sql, organizationId, id, categoryIds, transaction);
        const dto = await this.view(actor, id, transaction);
        await this.deps.audit.record(
          actor,
          { action: 'resource.created', targetType: 'resource', targetId: id, organizationId, after: snapshot(dto) },
          transaction,
        );
        if (status === 'published') await this.deps.events.publish(actor, 'resource.published', dto, transaction);
        return dto;
      });
      staged.promoteAfterCommit(file.tempKey, key);
      if (image && imageKey) staged.promoteAfterCommit(image.tempKey, imageKey);
      await staged.promote();
      return dto;
    } finally {
      await staged.discard();
    }
  }

  async update(actor: Actor, id: string, input: UpdateResourceInput): Promise<ResourceDto> {
    const scope = scopeFor(actor, 'resource', 'write');
    const organizationId = scope.organizationId!;
    const staged = this.staged(input);
    const obsolete: string[] = [];
    try {
      if (input.file && input.uploadId)
        throw errors.validation([{ field: 'uploadId', message: 'send either a file part or an uploadId, not both' }]);
      // 404 for another tenant's id before any upload is taken or inspected
      await requireOwnResource(this.deps.sql, organizationId, id);
      const source = input.file ?? (input.uploadId ? await staged.takeUpload(actor, input.uploadId) : undefined);
      const file = source ? await staged.inspect(source, 'file', FILE_FORMATS) : undefined;
      const image = input.featuredImage
        ? await staged.inspect(input.featuredImage, 'featuredImage', IMAGE_FORMATS)
        : undefined;
      const dto = await this.deps.sequelize.transaction(async (transaction) => {
        // the row lock serialises concurrent replacements: each sees the other's version and adds the next
        const resource = await Resource.findOne({
          where: scope.where({ id }),
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!resource) throw errors.notFound('resource', id);
        const before = await this.view(actor, id, transaction);
        const wasPublished = resource.status === 'published';
        if (input.name !== undefined) resource.name = input.name;
        if (input.description !== undefined) resource.description = input.description;
        if (input.tags !== undefined) resource.tags = input.tags;
        if (input.accessLevel !== undefined) resource.accessLevel = input.accessLevel;
        const price = input.pricePart ? pairedPrice(input.pricePart, resource) : input.price;
        if (price !== undefined) {
          resource.priceAmount = price?.amount ?? null;
          resource.priceCurrency = price?.currency ?? null;
        } else if (input.accessLevel !== undefined && input.accessLevel !== 'paid') {
          // leaving the paid level drops the price it needed (a price is refused on other levels)
          resource.priceAmount = null;
          resource.priceCurrency = null;
        }
        assertPriceMatchesLevel(
          resource.accessLevel,
          resource.priceAmount === null
            ? null
            : { amount: resource.priceAmount, currency: resource.priceCurrency ?? '' },
          price !== undefined,
        );
        if (input.status !== undefined && input.status !== resource.status) {
          resource.status = input.status;
          resource.publishedAt = input.status === 'published' ? this.deps.clock.now() : null;
        }
        let version: number | undefined;
        if (file) {
          const row = await this.deps.sql.one<{ max: number }>(
            'SELECT max(version)::int AS max FROM resource_versions WHERE resource_id = $1',
            [id],
            transaction,
          );
          version = (row?.max ?? 0) + 1;
          const key = versionKey(organizationId, id, version);
          await this.addVersion(actor, organizationId, id, version, key, file, transaction);
          resource.currentVersion = version;
          resource.type = file.type;
          resource.format = file.format;
          staged.promoteAfterCommit(file.tempKey, key);
        }
        if (image) {
          const key = featuredKey(organizationId, id, image.format);
          if (resource.featuredImageKey) obsolete.push(resource.featuredImageKey);
          resource.featuredImageKey = key;
          staged.promoteAfterCommit(image.tempKey, key);
        }
        if (input.categoryIds !== undefined) {
          const categoryIds = await checkCategories(this.deps.sql, organizationId, input.categoryIds, transaction, id);
          await this.deps.sql.query('DELETE FROM resource_category_links WHERE resource_id = $1', [id], transaction);
          await linkCategories(this.deps.sql, organizationId, id, categoryIds, transaction);
        }
        resource.updatedBy = userIdOf(actor);
        resource.changed('updatedAt', true);
        await resource.save({ transaction });
        const after = await this.view(actor, id, transaction);
        await this.deps.audit.record(
          actor,
          {
            action: 'resource.updated',
            targetType: 'resource',
            targetId: id,
            organizationId,
            before: snapshot(before),
            after: snapshot(after),
          },
          transaction,
        );
        await this.deps.events.publish(actor, 'resource.updated', after, transaction);
        if (version !== undefined)
          await this.deps.events.publish(actor, 'resource.version_added', { ...after, version }, transaction);
        if (!wasPublished && resource.status === 'published')
          await this.deps.events.publish(actor, 'resource.published', after, transaction);
        if (wasPublished && resource.status === 'draft')
          await this.deps.events.publish(actor, 'resource.unpublished', after, transaction);
        return after;
      });
      await staged.promote();
      await Promise.all(
        obsolete.map((key) =>
          this.deps.storage
            .delete(key)
            .catch((error: unknown) =>
              this.deps.logger.warn({ err: error, key }, 'could not remove a replaced featured image'),
            ),
        ),
      );
      return dto;
    } finally {
      await staged.discard();
    }
  }

  /** Removes the row (versions, links, usage cascade), commits, then every file under its prefix. */
  async delete(actor: Actor, id: string): Promise<void> {
    const scope = scopeFor(actor, 'resource', 'write');
    const organizationId = scope.organizationId!;
    await this.deps.sequelize.transaction(async (transaction) => {
      const resource = await Resource.findOne({
        where: scope.where({ id }),
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      if (!resource) throw errors.notFound('resource', id);
      const dto = await this.view(actor, id, transaction);
      await resource.destroy({ transaction });
      await this.deps.audit.record(
        actor,
        { action: 'resource.deleted', targetType: 'resource', targetId: id, organizationId, before: snapshot(dto) },
        transaction,
      );
      await this.deps.events.publish(actor, 'resource.deleted', dto, transaction);
    });
    await this.removePrefix(resourcePrefix(organizationId, id));
  }

  /** The bytes this write stages: its file parts now, and whatever it takes or inspects later. */
  private staged(input: ResourceFileInput): StagedFiles {
    return new StagedFiles(this.deps, [input.file, input.featuredImage]);
  }

  private async addVersion(
    actor: Actor,
    organizationId: string,
    resourceId: string,
    version: number,
    storageKey: string,
    file: InspectedFile,
    transaction: Transaction,
  ): Promise<void> {
    await ResourceVersion.create(
      {
        organizationId,
        resourceId,
        version,
        storageKey,
        fileName: file.fileName,
        contentType: file.contentType,
        format: file.format,
        sizeBytes: file.sizeBytes,
        sha256: file.sha256,
        createdBy: userIdOf(actor),
      },
      { transaction },
    );
  }

  /** The resource as its managers see it (event data and answers), read inside the transaction. */
  private async view(actor: Actor, id: string, transaction: Transaction): Promise<ResourceDto> {
    const [view] = await loadResourceViews(this.deps.sql, libraryReader(actor, null), [id], transaction);
    if (!view) throw errors.notFound('resource', id);
    return toResourceDto(view);
  }

  private async removePrefix(prefix: string): Promise<void> {
    try {
      for await (const object of this.deps.storage.list(prefix)) await this.deps.storage.delete(object.key);
    } catch (error) {
      // the row is gone; the sweeper removes prefixes whose resource row is gone
      this.deps.logger.error({ err: error, prefix }, 'could not remove the files of a deleted resource');
    }
  }
}

function userIdOf(actor: Actor): string | null {
  return actor.type === 'user' ? actor.id : null;
}

/** The half of a price that was not sent, as the refusal names it. */
function halfMissing(part: Partial<Price>) {
  return part.amount === undefined
    ? { field: 'priceAmount', message: 'is required with priceCurrency' }
    : { field: 'priceCurrency', message: 'is required with priceAmount' };
}

/** One half of a price with the resource's stored other half (400 when it has none, or the pair is not a price). */
function pairedPrice(part: Partial<Price>, resource: Resource): Price {
  const amount = part.amount ?? resource.priceAmount;
  const currency = part.currency ?? resource.priceCurrency;
  if (amount === null || currency === null) {
    const missing = halfMissing(part);
    throw errors.validation([{ ...missing, message: `${missing.message} (this resource has no price yet)` }]);
  }
  const refusal = priceRefusal(amount, currency);
  if (refusal) throw errors.validation([{ field: refusal[0], message: refusal[1] }]);
  return { amount, currency };
}

/** A paid resource needs a price; any other level refuses one (400 naming the price fields). */
function assertPriceMatchesLevel(
  level: AccessLevel,
  price: { amount: string; currency: string } | null,
  priceSent = true,
): void {
  if (level === 'paid' && !price) {
    throw errors.validation([
      { field: 'priceAmount', message: 'is required for a paid resource' },
      { field: 'priceCurrency', message: 'is required for a paid resource' },
    ]);
  }
  if (level !== 'paid' && price && priceSent) {
    throw errors.validation([
      { field: 'priceAmount', message: `a price is only allowed on a paid resource (this one is ${level})` },
    ]);
  }
}

const snapshot = (dto: ResourceDto): Record<string, unknown> => ({
  name: dto.name,
  description: dto.description,
  format: dto.format,
  accessLevel: dto.accessLevel,
  price: dto.price,
  status: dto.status,
  tags: dto.tags,
  categories: dto.categories.map((category) => category.id),
  currentVersion: dto.currentVersion,
  sha256: dto.file.sha256,
});
