// The library's one access policy: who may see a resource (list, search, details, stats) and who may
// open it (download, versions, the AI chat's passages, generated media). One function of (actor,
// resource), written as SQL so lists, counts, search and vector retrieval filter inside the query.
//
//   reader            sees (published only unless noted)          opens
//   manager           everything, drafts too                      everything, drafts too
//   staff             every level                                 every level
//   member (active)   public, preview, members, paid (+premium     public, preview, members, paid with an
//                     for premium-tier members)                   entitlement (+premium for premium tier)
//   visitor           public, preview, paid                       public
//
// manager: client admins, platform admins inside an organization, API keys (they upload);
// staff: client users; member: a user whose linked member record (members.user_id) is active;
// visitor: anyone else of the organization (no member record, lapsed/pending/cancelled) and anonymous
// visitors of the public catalogue. A resource a reader may not see is a 404; one they see but may not
// open is a 403 `resource_locked` naming what it needs (membership, premium, a purchase).
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { AccessLevel } from './access-levels.ts';

export type ReaderStanding = 'manager' | 'staff' | 'member' | 'visitor';

export interface LibraryReader {
  readonly actor: Actor;
  readonly organizationId: string;
  readonly standing: ReaderStanding;
  /** The reader's active member record, if any. */
  readonly member: { id: string; tier: 'member' | 'premium' } | null;
  /** Drafts are visible (managers only). */
  readonly seesDrafts: boolean;
  /** Levels whose resources the reader sees (lists, details). */
  readonly visibleLevels: readonly AccessLevel[];
  /** Levels whose files the reader opens without an entitlement. */
  readonly openLevels: readonly AccessLevel[];
  /** Predicate over a `resources` row aliased `alias`: the reader sees it. */
  seeSql(binds: Binds, alias?: string): string;
  /** Predicate over a `resources` row aliased `alias`: the reader may open its file and content. */
  openSql(binds: Binds, alias?: string): string;
}

const ALL_LEVELS: readonly AccessLevel[] = ['public', 'preview', 'members', 'premium', 'paid'];
const MANAGERS: ReadonlySet<Actor['role']> = new Set(['ROLE_CLIENT_ADMIN', 'ROLE_PLATFORM_ADMIN', 'API_KEY', 'SYSTEM']);
const STAFF: ReadonlySet<Actor['role']> = new Set(['ROLE_CLIENT_USER']);

function levelsFor(
  standing: ReaderStanding,
  tier: 'member' | 'premium' | undefined,
): { visible: AccessLevel[]; open: AccessLevel[] } {
  if (standing === 'manager' || standing === 'staff') return { visible: [...ALL_LEVELS], open: [...ALL_LEVELS] };
  if (standing === 'member') {
    const premium: AccessLevel[] = tier === 'premium' ? ['premium'] : [];
    return {
      visible: ['public', 'preview', 'members', ...premium, 'paid'],
      open: ['public', 'preview', 'members', ...premium],
    };
  }
  return { visible: ['public', 'preview', 'paid'], open: ['public'] };
}

/** Builds a reader from what is known of the actor (no query); `resolveReader` looks up the member record. */
export function libraryReader(actor: Actor, member: LibraryReader['member']): LibraryReader {
  const scope = scopeFor(actor, 'resource', 'read');
  const organizationId = scope.organizationId as string;
  const standing: ReaderStanding = MANAGERS.has(actor.role)
    ? 'manager'
    : STAFF.has(actor.role)
      ? 'staff'
      : member
        ? 'member'
        : 'visitor';
  const levels = levelsFor(standing, member?.tier);
  const seesDrafts = standing === 'manager';
  const column = (alias: string | undefined, name: string) => (alias ? `${alias}.${name}` : name);
  const base = (binds: Binds, alias?: string) => [
    `${column(alias, 'organization_id')} = ${binds.add(organizationId)}`,
    ...(seesDrafts ? [] : [`${column(alias, 'status')} = 'published'`]),
  ];
  return {
    actor,
    organizationId,
    standing,
    member: standing === 'member' ? member : null,
    seesDrafts,
    visibleLevels: levels.visible,
    openLevels: levels.open,
    seeSql(binds, alias) {
      const clauses = base(binds, alias);
      if (levels.visible.length < ALL_LEVELS.length)
        clauses.push(`${column(alias, 'access_level')} = ANY(${binds.add(levels.visible)}::text[])`);
      return clauses.join(' AND ');
    },
    openSql(binds, alias) {
      const clauses = base(binds, alias);
      if (levels.open.length < ALL_LEVELS.length) {
        const byLevel = `${column(alias, 'access_level')} = ANY(${binds.add(levels.open)}::text[])`;
        const purchased =
          standing === 'member' && member
            ? ` OR (${column(alias, 'access_level')} = 'paid' AND EXISTS (SELECT 1 FROM resource_entitlements e
                 WHERE e.resource_id = ${column(alias, 'id')} AND e.member_id = ${binds.add(member.id)} AND e.revoked_at IS NULL))`
            : '';
        clauses.push(`(${byLevel}${purchased})`);
      }
      return clauses.join(' AND ');
    },
  };
}

/**
 * The reader for an actor: checks `resources:read` and the tenant (scopeFor), then finds the user's
 * active member record in the organization. One indexed lookup per request, for user actors only.
 */
export async function resolveReader(sql: Sql, actor: Actor): Promise<LibraryReader> {
  const scope = scopeFor(actor, 'resource', 'read');
  if (actor.type !== 'user' || MANAGERS.has(actor.role) || STAFF.has(actor.role)) return libraryReader(actor, null);
  const member = await sql.repeated<{ id: string; tier: 'member' | 'premium' }>(
    `SELECT id, tier FROM members WHERE organization_id = $1 AND user_id = $2 AND status = 'active'`,
    [scope.organizationId, actor.id],
  );
  return libraryReader(actor, member ?? null);
}

/** What opening a resource of this level needs, for the 403 a reader who sees it but may not open it gets. */
export function lockedReason(level: AccessLevel): string {
  switch (level) {
    case 'preview':
    case 'members':
      return 'Opening this resource requires an active membership';
    case 'premium':
      return 'Opening this resource requires an active premium membership';
    case 'paid':
      return 'Opening this resource requires a purchase (an entitlement recorded for your active membership)';
    default:
      return 'You may not open this resource';
  }
}

interface AccessRow {
  id: string;
  access_level: AccessLevel;
  sees: boolean;
  opens: boolean;
}

/**
 * The row check, batched into one query like the list predicate: throws not_found when the reader may
 * not see the resource and, for `open`, resource_locked when they see it but may not open it.
 */
export async function requireResourceAccess(
  sql: Sql,
  reader: LibraryReader,
  resourceId: string,
  action: 'see' | 'open',
): Promise<void> {
  const binds = new Binds();
  const id = binds.add(resourceId);
  // one text per kind of reader: repeated, prepared once per connection
  const row = await sql.repeated<AccessRow>(
    `SELECT r.id, r.access_level, (${reader.seeSql(binds, 'r')}) AS sees, (${reader.openSql(binds, 'r')}) AS opens
       FROM resources r WHERE r.id = ${id}::uuid`,
    binds.values,
  );
  if (!row || !row.sees) throw errors.notFound('resource', resourceId);
  if (action === 'open' && !row.opens)
    throw new AppError('resource_locked', lockedReason(row.access_level), { accessLevel: row.access_level });
}
