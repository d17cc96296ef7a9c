// A resource of the generic CRUD layer is described once, here-shaped: which model, which fields
// filter how, which sort, which the client may write. Routes, service, filters and CSV export are
// all driven by it, so members, events and courses share one implementation.
import type { Attributes, Model, ModelStatic, Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import type { Kind } from '../../shared/access/scope.ts';

/**
 * - exact: `status=active`, several values `status[]=a&status[]=b`
 * - partial: case-insensitive prefix match, `lastName=smi` finds Smith
 * - date: `createdAt[after|before|strictly_after|strictly_before]=<ISO 8601>`
 * - range: `capacity[gt|gte|lt|lte]=10`, `capacity[between]=10..20`
 */
export type FilterKind = 'exact' | 'partial' | 'date' | 'range';

/** How a query-string value is parsed and checked. */
export type ValueType = 'string' | 'uuid' | 'email' | 'date' | 'datetime' | 'integer' | 'decimal';

export interface FieldSpec {
  type: ValueType;
  filter?: FilterKind;
  sortable?: boolean;
  /** Allowed values of an enumerated field. */
  values?: readonly string[];
  /** Exact matches ignore case (e-mail addresses); the index is on lower(column). */
  caseInsensitive?: boolean;
}

export type SortDirection = 'asc' | 'desc';
export interface SortTerm {
  field: string;
  direction: SortDirection;
}

export interface WriteContext {
  actor: Actor;
  organizationId: string;
  transaction: Transaction;
  /** The injected clock's time (publishedAt and the like). */
  now: Date;
  /** The record being replaced (PUT); absent on create. */
  existing?: Model;
}

export interface ResourceDefinition<
  M extends Model = Model,
  Dto extends object = object,
  Input extends object = object,
> {
  /** Singular, lower case: webhook events are `<name>.created|updated|deleted`. */
  name: string;
  /** For messages: "Member 123 not found". */
  label: string;
  /** Collection path, e.g. /api/members. */
  path: string;
  model: ModelStatic<M>;
  /** The access kind: permissions and row visibility come from the scope (src/shared/access/scope.ts). */
  kind: Extract<Kind, 'member' | 'event' | 'course'>;
  /** Filterable and sortable fields by wire name (= model attribute name). */
  fields: Readonly<Record<string, FieldSpec>>;
  /** Fields a body may set. */
  writable: readonly (keyof Input & string)[];
  /** Fields a body may not set (refused with read_only_field, never ignored). */
  readOnly: readonly string[];
  /** When the client sends no order[...]. */
  defaultOrder: readonly SortTerm[];
  /** Unique index name -> the wire field it protects, for a readable 409. */
  uniqueIndexes?: Readonly<Record<string, string>>;
  /**
   * Body -> model attributes, replacing every writable field (absent optional fields take their
   * defaults). Rules the contract cannot express (cross-field, cross-record) throw here.
   */
  toAttributes(input: Input, context: WriteContext): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Takes a model instance or a plain row of the same attributes (lists read rows, not instances). */
  toDto(record: Attributes<M>): Dto;
  /** CSV columns, in order; defaults to the DTO's keys. Objects are written as JSON. */
  csvColumns?: readonly (keyof Dto & string)[];
}

export const defineResource = <M extends Model, Dto extends object, Input extends object>(
  definition: ResourceDefinition<M, Dto, Input>,
): ResourceDefinition<M, Dto, Input> => definition;
