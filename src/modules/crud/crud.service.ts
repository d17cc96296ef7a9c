// The five operations of every CRUD resource, driven by its definition. Writes run in one
// transaction with their audit entry and their webhook event (the outbox), so a committed change
// always has both and a rolled-back one has neither.
import {
  UniqueConstraintError,
  type Attributes,
  type CreationAttributes,
  type Model,
  type Sequelize,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
import type { Writable } from 'node:stream';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { streamCsv } from './crud.csv.ts';
import type { ResourceDefinition } from './crud.definition.ts';
import { parseListQuery } from './crud.filters.ts';
import { listSql, rowSql, tableShape, type TableShape } from './crud.sql.ts';

/** Where domain events go; the webhooks module implements it. */
export interface EventPublisher {
  publish(actor: Actor, type: string, data: object, transaction: Transaction): Promise<void>;
}

export interface CrudDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: AuditService;
  publisher: EventPublisher;
}

type Json = Record<string, unknown>;

export class CrudService<M extends Model = Model, Dto extends object = object, Input extends object = object> {
  private readonly shape: TableShape;

  constructor(
    readonly definition: ResourceDefinition<M, Dto, Input>,
    private readonly deps: CrudDeps,
  ) {
    this.shape = tableShape(definition.model, definition.fields);
  }

  /** A page of rows (plain attributes, not model instances) and the total; both statements at once. */
  async list(actor: Actor, query: Readonly<Json>, page: PageRequest): Promise<Page<Attributes<M>>> {
    const statements = this.listStatements(actor, query, page);
    const [rows, count] = await Promise.all([
      this.deps.sql.rows<Attributes<M>>(statements.rows.text, statements.rows.values),
      this.deps.sql.one<{ total: number }>(statements.count.text, statements.count.values),
    ]);
    return pageOf(rows, count?.total ?? 0, page);
  }

  /** The statements list() runs, for the same actor, filters and page (EXPLAIN tests read them). */
  listStatements(actor: Actor, query: Readonly<Json>, page?: PageRequest) {
    const { definition } = this;
    const scope = scopeFor(actor, definition.kind, 'read');
    const listQuery = parseListQuery(query, definition.fields, definition.defaultOrder);
    return listSql(this.shape, scope, listQuery, page && { limit: page.itemsPerPage, offset: offsetOf(page) });
  }

  /**
   * Checks access and filters now (so a refusal is still an ordinary error response); the returned
   * function streams every matching record as CSV from a server-side cursor (memory stays flat).
   */
  csvExport(actor: Actor, query: Readonly<Json>): (output: Writable) => Promise<void> {
    const { rows } = this.listStatements(actor, query);
    return (output) => streamCsv(this.deps.sequelize, this.definition, rows, output);
  }

  /** One row (plain attributes, as lists return them: no model instance) inside the actor's scope. */
  async get(actor: Actor, id: string): Promise<Attributes<M>> {
    const statement = rowSql(this.shape, scopeFor(actor, this.definition.kind, 'read'), id);
    // one text per resource and kind of reader: a repeated statement, prepared once per connection
    const record = await this.deps.sql.repeated<Attributes<M>>(statement.text, statement.values);
    if (!record) throw errors.notFound(this.definition.label, id);
    return record;
  }

  /** `transaction`: the caller's, when the record is one part of a larger change (else one of its own). */
  async create(actor: Actor, input: Input, transaction?: Transaction): Promise<M> {
    const { definition } = this;
    const { organizationId } = scopeFor(actor, definition.kind, 'write') as { organizationId: string };
    this.checkBody(input);
    return this.write(transaction, async (transaction) => {
      const now = this.deps.clock.now();
      const attributes = await definition.toAttributes(input, { actor, organizationId, transaction, now });
      const record = await definition.model.create(
        { ...attributes, organizationId } as unknown as CreationAttributes<M>,
        { transaction },
      );
      await this.changed(actor, 'created', record, { after: definition.toDto(record) }, transaction);
      return record;
    });
  }

  /** PUT: every writable field is replaced; nothing changed means no audit entry and no event. */
  async replace(actor: Actor, id: string, input: Input, transaction?: Transaction): Promise<M> {
    const { definition } = this;
    const scope = scopeFor(actor, definition.kind, 'write');
    const organizationId = scope.organizationId as string;
    this.checkBody(input);
    return this.write(transaction, async (transaction) => {
      const record = await this.lockOwn(scope.where({ id }), id, transaction);
      const before = definition.toDto(record);
      const now = this.deps.clock.now();
      record.set(await definition.toAttributes(input, { actor, organizationId, transaction, now, existing: record }));
      if (!record.changed()) return record;
      await record.save({ transaction });
      await this.changed(actor, 'updated', record, { before, after: definition.toDto(record) }, transaction);
      return record;
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    const { definition } = this;
    const scope = scopeFor(actor, definition.kind, 'write');
    await this.write(undefined, async (transaction) => {
      const record = await this.lockOwn(scope.where({ id }), id, transaction);
      const before = definition.toDto(record);
      await record.destroy({ transaction });
      await this.changed(actor, 'deleted', record, { before }, transaction);
    });
  }

  /** Mass assignment: read-only fields are refused, never silently dropped or applied. */
  private checkBody(input: object): void {
    const keys = Object.keys(input);
    const readOnly = keys.filter((key) => this.definition.readOnly.includes(key));
    if (readOnly.length) throw errors.readOnly(readOnly);
    const unknown = keys.filter((key) => !(this.definition.writable as readonly string[]).includes(key));
    if (unknown.length)
      throw errors.validation(unknown.map((field) => ({ field, message: 'is not a field of this record' })));
  }

  /** The record with this id inside the scope's `where` (another tenant's is simply not found). */
  private async lockOwn(where: WhereOptions, id: string, transaction: Transaction): Promise<M> {
    const record = await this.definition.model.findOne({
      where: where as WhereOptions<Attributes<M>>,
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!record) throw errors.notFound(this.definition.label, id);
    return record;
  }

  private async changed(
    actor: Actor,
    change: 'created' | 'updated' | 'deleted',
    record: M,
    states: { before?: object; after?: object },
    transaction: Transaction,
  ) {
    const { name } = this.definition;
    const targetId = String(record.get('id'));
    await this.deps.audit.record(
      actor,
      {
        action: `${name}.${change}`,
        targetType: name,
        targetId,
        before: states.before as Json,
        after: states.after as Json,
      },
      transaction,
    );
    await this.deps.publisher.publish(actor, `${name}.${change}`, (states.after ?? states.before)!, transaction);
  }

  /** One transaction (the caller's when given); a duplicate of a unique field becomes a 409 that names the field. */
  private async write<T>(outer: Transaction | undefined, work: (transaction: Transaction) => Promise<T>): Promise<T> {
    try {
      return await (outer ? work(outer) : this.deps.sequelize.transaction(work));
    } catch (error) {
      const field =
        error instanceof UniqueConstraintError
          ? this.definition.uniqueIndexes?.[(error.parent as { constraint?: string }).constraint ?? '']
          : undefined;
      if (!field) throw error;
      throw new AppError(
        'already_exists',
        `Another ${this.definition.name} of this organization has the same ${field}`,
        {
          errors: [{ field, message: 'must be unique within the organization' }],
        },
      );
    }
  }
}
