// Who may see which row, in one place that speaks SQL. For (actor, kind, action) a Scope checks the
// permission and the tenant once, then yields the same rule three ways: a check for one row already
// in memory, a Sequelize `where`, and a parameterised SQL fragment for raw queries (lists, search,
// exports, retrieval). Nothing fetches rows and filters them in JavaScript; a row outside the scope
// is indistinguishable from a missing one (404, never 403).
import { Op, type WhereOptions } from 'sequelize';
import type { Binds } from '../sql.ts';
import type { Actor } from './actor.ts';
import { assertCan, type Permission } from './policy.ts';
import { requireTenant } from './tenancy.ts';

export type Action = 'read' | 'write';

/** Rows only some readers see: the attribute, its column, and the values those readers may see. */
interface Restriction {
  attribute: string;
  column: string;
  values: readonly string[];
}

interface KindRule {
  permissions: Readonly<Record<Action, Permission>>;
  /** false: a platform-wide table read by platform admins only (users, their activity, jobs). */
  tenant: boolean;
  /** Applies to the audience roles (members and sponsors) reading; staff, API keys and jobs see every row. */
  audience?: Restriction;
}

/**
 * Events: a member must learn that an event they saw announced was cancelled, so cancelled events
 * stay visible; drafts do not. Courses: published only (drafts and archived courses are staff's).
 */
export const VISIBLE_EVENT_STATUSES = ['published', 'cancelled'] as const;
export const VISIBLE_COURSE_STATUSES = ['published'] as const;

const KINDS = {
  member: { permissions: { read: 'members:read', write: 'members:write' }, tenant: true },
  event: {
    permissions: { read: 'events:read', write: 'events:write' },
    tenant: true,
    audience: { attribute: 'status', column: 'status', values: VISIBLE_EVENT_STATUSES },
  },
  course: {
    permissions: { read: 'courses:read', write: 'courses:write' },
    tenant: true,
    audience: { attribute: 'status', column: 'status', values: VISIBLE_COURSE_STATUSES },
  },
  // The library's rows: tenant and permission here; which levels, drafts and entitlements a reader
  // sees is the library's one policy (modules/library/resource.access.ts), which starts from this scope.
  resource: { permissions: { read: 'resources:read', write: 'resources:write' }, tenant: true },
  resourceCategory: { permissions: { read: 'resources:read', write: 'categories:manage' }, tenant: true },
  webhook: { permissions: { read: 'webhooks:manage', write: 'webhooks:manage' }, tenant: true },
  apiKey: { permissions: { read: 'apiKeys:read', write: 'apiKeys:manage' }, tenant: true },
  user: { permissions: { read: 'users:read', write: 'users:admin' }, tenant: false },
  job: { permissions: { read: 'jobs:read', write: 'platform:admin' }, tenant: false },
} as const satisfies Record<string, KindRule>;

export type Kind = keyof typeof KINDS;

/** Roles that read the organization's published content, not its working drafts. */
const AUDIENCE_ROLES: ReadonlySet<Actor['role']> = new Set(['ROLE_MEMBER', 'ROLE_SPONSOR_USER', 'ROLE_SPONSOR_ADMIN']);

type Row = Readonly<Record<string, unknown>>;

export interface Scope {
  readonly kind: Kind;
  readonly action: Action;
  /** The tenant every row must belong to; null for platform-wide kinds. */
  readonly organizationId: string | null;
  /** Whether one row (model attributes: organizationId, status, ...) is inside the scope. */
  allows(row: Row): boolean;
  /** A Sequelize `where`: the scope's conditions and `extra` (e.g. `{ id }`). */
  where<W extends object>(extra?: W): WhereOptions;
  /** A SQL predicate with its values added to `binds`; `alias` qualifies the columns (`m` -> `m.organization_id`). */
  sql(binds: Binds, alias?: string): string;
}

/** Asserts the permission and the tenant, and returns the rows the actor may `action`. */
export function scopeFor(actor: Actor, kind: Kind, action: Action): Scope {
  const rule: KindRule = KINDS[kind];
  assertCan(actor, rule.permissions[action]);
  const organizationId = rule.tenant ? requireTenant(actor) : null;
  const restriction = action === 'read' && AUDIENCE_ROLES.has(actor.role) ? rule.audience : undefined;
  return {
    kind,
    action,
    organizationId,
    allows: (row) =>
      (organizationId === null || row.organizationId === organizationId) &&
      (!restriction || restriction.values.includes(row[restriction.attribute] as string)),
    where: (extra) => ({
      ...extra,
      ...(organizationId === null ? {} : { organizationId }),
      ...(restriction ? { [restriction.attribute]: { [Op.in]: [...restriction.values] } } : {}),
    }),
    sql(binds, alias) {
      const column = (name: string) => (alias ? `${alias}.${name}` : name);
      const clauses: string[] = [];
      if (organizationId !== null) clauses.push(`${column('organization_id')} = ${binds.add(organizationId)}`);
      if (restriction) clauses.push(`${column(restriction.column)} = ANY(${binds.add(restriction.values)}::text[])`);
      return clauses.length ? clauses.join(' AND ') : 'TRUE';
    },
  };
}
