// Directories of an organization. Platform admins add them (the spec's Admin Portal > Platform
// Settings > Directory Sync, and /api/admin/directories): adding one issues its SCIM bearer token,
// shown once and stored as a hash, rotatable and revocable. The organization's client admins read
// them, their users and groups through /api/directories, and start a pull sync of a brokered one.
import type { Sequelize, Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { directoryActor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { tenantWhere } from '../../shared/access/tenancy.ts';
import { BriefCache } from '../../shared/brief-cache.ts';
import type { Clock } from '../../shared/clock.ts';
import { randomToken, sha256 } from '../../shared/crypto.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { Organization } from '../organizations/index.ts';
import {
  DEFAULT_GROUP_ROLES,
  Directory,
  type DirectoryGroupRole,
  type DirectoryProvider,
  type DirectoryRole,
} from './directory.model.ts';
import type { DirectoryGroupRow, DirectoryUserRow } from './directory-provisioning.service.ts';

export interface DirectoryInput {
  organizationId: string;
  name: string;
  provider: DirectoryProvider;
  externalId?: string | null;
  hardDelete?: boolean;
  sendWelcome?: boolean;
  groupRoles?: DirectoryGroupRole[];
  defaultRole?: DirectoryRole;
}

export interface DirectoryCounts {
  users: number;
  groups: number;
}

export interface SyncRun {
  id: string;
  directoryId: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  usersSynced: number;
  groupsSynced: number;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
}

/**
 * Runs `forget` on every write to a directory or an organization (a suspension) through the models, at
 * once and again after the commit (a lookup racing the transaction still read the old row), as the
 * credential caches do for users.
 */
function forgetOnChange(forget: () => void): void {
  const nowAndAfterCommit = (options: { transaction?: Transaction | null }) => {
    forget();
    options.transaction?.afterCommit(forget);
  };
  Directory.addHook('afterSave', (_directory, options) => nowAndAfterCommit(options));
  Directory.addHook('afterDestroy', (_directory, options) => nowAndAfterCommit(options));
  Directory.addHook('afterBulkUpdate', (options) => nowAndAfterCommit(options));
  Directory.addHook('afterBulkDestroy', (options) => nowAndAfterCommit(options));
  Organization.addHook('afterSave', (_organization, options) => nowAndAfterCommit(options));
  Organization.addHook('afterBulkUpdate', (options) => nowAndAfterCommit(options));
}

/** Tokens look like `scim_<43 url-safe characters>`; the prefix shown to admins is its first 12. */
const TOKEN_PREFIX = 'scim_';

/** An active directory found by its token, with whether its organization is suspended. */
interface TokenDirectory {
  directory: Directory;
  organizationSuspended: boolean;
}
const newToken = () => `${TOKEN_PREFIX}${randomToken(32)}`;

export class DirectoryService {
  /**
   * Active directories by token hash and by id, briefly (see BriefCache): every SCIM request resolves
   * both, and an initial sync is thousands of them a minute. Emptied on every change to a directory
   * made through this process (model hooks, now and after the commit); another instance's rotation,
   * revocation or deactivation takes effect here within the cache's 2 seconds, the bound every
   * credential cache keeps.
   */
  private readonly byTokenHash: BriefCache<TokenDirectory>;
  private readonly byId: BriefCache<Directory>;

  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      sql: Sql;
      clock: Clock;
      audit: AuditService;
      /** Queues a pull sync of a brokered directory (the sync job). */
      enqueueSync: (run: SyncRun, transaction: import('sequelize').Transaction) => Promise<unknown>;
    },
  ) {
    // ages by the injected clock, so tests can move past the bound
    const now = () => this.deps.clock.now().getTime();
    this.byTokenHash = new BriefCache<TokenDirectory>({ now });
    this.byId = new BriefCache<Directory>({ now });
    forgetOnChange(() => this.forgetDirectories());
  }

  /** The SCIM surface's credential: the directory a bearer token belongs to, as its principal. */
  readonly verifyToken = async (token: string): Promise<Actor | null> => {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const found = await this.byToken(token);
    if (!found) return null;
    // as an API key of the organization is: a suspension stops provisioning into it too
    if (found.organizationSuspended)
      throw new AppError('organization_suspended', "The directory's organization is suspended");
    return directoryActor(found.directory.id, found.directory.organizationId);
  };

  private async byToken(token: string): Promise<TokenDirectory | null> {
    const tokenHash = sha256(token);
    const found = await this.byTokenHash.get(tokenHash, async () => {
      const directory = await Directory.findOne({ where: { tokenHash, status: 'active' } });
      if (!directory) return undefined;
      const organization = await Organization.findByPk(directory.organizationId, { attributes: ['status'] });
      return { directory, organizationSuspended: organization?.status === 'suspended' };
    });
    return found ?? null;
  }

  /** The directory a SCIM principal stands for (active). */
  async ofActor(actor: Actor): Promise<Directory> {
    const directory =
      actor.type === 'directory'
        ? await this.byId.get(actor.id, async () => (await Directory.findByPk(actor.id)) ?? undefined)
        : undefined;
    if (!directory || directory.status !== 'active') throw errors.unauthenticated('The directory is not active');
    return directory;
  }

  /** Called on every change to a directory (model hooks): nothing cached of one outlives it here. */
  forgetDirectories(): void {
    this.byTokenHash.clear();
    this.byId.clear();
  }

  async byExternalId(externalId: string): Promise<Directory | null> {
    return Directory.findOne({ where: { externalId } });
  }

  async create(actor: Actor, input: DirectoryInput): Promise<{ directory: Directory; token: string }> {
    assertCan(actor, 'platform:admin');
    if (!(await Organization.findByPk(input.organizationId, { attributes: ['id'] })))
      throw errors.validation([{ field: 'organizationId', message: 'is not an organization' }]);
    if (input.provider === 'identity_service' && !input.externalId)
      throw errors.validation([{ field: 'externalId', message: "is the identity service's directory id (required)" }]);
    const token = newToken();
    return this.deps.sequelize.transaction(async (transaction) => {
      const directory = await Directory.create(
        {
          organizationId: input.organizationId,
          name: input.name,
          provider: input.provider,
          externalId: input.externalId ?? null,
          hardDelete: input.hardDelete ?? false,
          sendWelcome: input.sendWelcome ?? true,
          groupRoles: input.groupRoles ?? DEFAULT_GROUP_ROLES,
          defaultRole: input.defaultRole ?? 'ROLE_MEMBER',
          ...this.issued(token),
        },
        { transaction },
      );
      await this.record(actor, 'directory.created', directory, transaction);
      return { directory, token };
    });
  }

  /** A new token; the old one stops working at once. */
  async rotateToken(actor: Actor, id: string): Promise<{ directory: Directory; token: string }> {
    assertCan(actor, 'platform:admin');
    const directory = await this.anyOrganization(id);
    const token = newToken();
    await this.deps.sequelize.transaction(async (transaction) => {
      await directory.update(
        {
          ...this.issued(token),
          status: 'active',
        },
        { transaction },
      );
      await this.record(actor, 'directory.token_rotated', directory, transaction);
    });
    return { directory, token };
  }

  /** No token: SCIM requests are refused until a new one is issued. */
  async revokeToken(actor: Actor, id: string): Promise<Directory> {
    assertCan(actor, 'platform:admin');
    const directory = await this.anyOrganization(id);
    await this.deps.sequelize.transaction(async (transaction) => {
      await directory.update({ tokenHash: null, tokenPrefix: null, tokenCreatedAt: null }, { transaction });
      await this.record(actor, 'directory.token_revoked', directory, transaction);
    });
    return directory;
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<Directory>> {
    assertCan(actor, 'integrations:configure');
    const { rows, count } = await Directory.findAndCountAll({
      where: tenantWhere(actor),
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    return pageOf(rows, count, page);
  }

  async get(actor: Actor, id: string): Promise<Directory> {
    assertCan(actor, 'integrations:configure');
    const directory = await Directory.findOne({ where: tenantWhere(actor, { id }) });
    if (!directory) throw errors.notFound('Directory');
    return directory;
  }

  async counts(directoryIds: string[]): Promise<Map<string, DirectoryCounts>> {
    const rows = await this.deps.sql.rows<{ id: string; users: number; groups: number }>(
      `SELECT d.id,
              (SELECT count(*)::int FROM directory_users u WHERE u.directory_id = d.id) AS users,
              (SELECT count(*)::int FROM directory_groups g WHERE g.directory_id = d.id) AS groups
         FROM directories d WHERE d.id = ANY($1::uuid[])`,
      [directoryIds],
    );
    return new Map(rows.map((r) => [r.id, { users: r.users, groups: r.groups }]));
  }

  async users(
    actor: Actor,
    id: string,
    page: PageRequest,
  ): Promise<Page<DirectoryUserRow & { groups: Array<{ id: string; displayName: string }> }>> {
    // the directory (its tenant check) and the page at once: one round trip, not two; a directory the
    // actor may not read is a 404 whatever the page queries found
    const [, rows, total] = await Promise.all([
      this.get(actor, id),
      // the page's ids first, from the list index alone (directory_users_list_idx covers the order), and
      // only those 100 rows are read and given their groups: skipped rows cost an index entry each
      this.deps.sql.rows<DirectoryUserRow & { groups: Array<{ id: string; displayName: string }> }>(
        `SELECT u.id, u.directory_id AS "directoryId", u.organization_id AS "organizationId", u.user_id AS "userId",
                u.external_id AS "externalId", u.user_name AS "userName", u.given_name AS "givenName",
                u.family_name AS "familyName", u.email, u.active, u.resource, u.version,
                u.created_at AS "createdAt", u.updated_at AS "updatedAt",
                COALESCE((SELECT json_agg(json_build_object('id', g.id, 'displayName', g.display_name) ORDER BY g.display_name)
                            FROM directory_group_members m JOIN directory_groups g ON g.id = m.group_id
                           WHERE m.directory_user_id = u.id), '[]') AS groups
           FROM (SELECT id, created_at FROM directory_users WHERE directory_id = $1
                  ORDER BY created_at, id LIMIT $2 OFFSET $3) page
           JOIN directory_users u ON u.id = page.id
          ORDER BY page.created_at, page.id`,
        [id, page.itemsPerPage, offsetOf(page)],
      ),
      this.deps.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM directory_users WHERE directory_id = $1', [id]),
    ]);
    return pageOf(rows, total!.n, page);
  }

  async groups(
    actor: Actor,
    id: string,
    page: PageRequest,
  ): Promise<Page<DirectoryGroupRow & { memberCount: number }>> {
    const directory = await this.get(actor, id);
    const [rows, total] = await Promise.all([
      this.deps.sql.rows<DirectoryGroupRow & { memberCount: number }>(
        `SELECT g.id, g.directory_id AS "directoryId", g.organization_id AS "organizationId", g.external_id AS "externalId",
                g.display_name AS "displayName", g.version, g.created_at AS "createdAt", g.updated_at AS "updatedAt",
                (SELECT count(*)::int FROM directory_group_members m WHERE m.group_id = g.id) AS "memberCount"
           FROM directory_groups g WHERE g.directory_id = $1
          ORDER BY g.display_name, g.id LIMIT $2 OFFSET $3`,
        [directory.id, page.itemsPerPage, offsetOf(page)],
      ),
      this.deps.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM directory_groups WHERE directory_id = $1', [
        directory.id,
      ]),
    ]);
    return pageOf(rows, total!.n, page);
  }

  /** POST /{id}/sync: a pull from the identity service, in a job (brokered directories only). */
  async startSync(actor: Actor, id: string): Promise<SyncRun> {
    const directory = await this.get(actor, id);
    if (directory.provider !== 'identity_service')
      throw new AppError(
        'unprocessable',
        'This directory is our own SCIM server: Entra ID or Okta push changes to it; there is nothing to pull',
      );
    return this.deps.sequelize.transaction(async (transaction) => {
      const run = (await this.deps.sql.one<SyncRun>(
        `INSERT INTO directory_sync_runs (directory_id, created_at) VALUES ($1, $2)
         RETURNING id, directory_id AS "directoryId", status, users_synced AS "usersSynced",
           groups_synced AS "groupsSynced", error, started_at AS "startedAt", finished_at AS "finishedAt", created_at AS "createdAt"`,
        [directory.id, this.deps.clock.now()],
        transaction,
      ))!;
      await this.deps.enqueueSync(run, transaction);
      await this.record(actor, 'directory.sync_requested', directory, transaction);
      return run;
    });
  }

  async lastRun(directoryId: string): Promise<SyncRun | undefined> {
    return this.deps.sql.one<SyncRun>(
      `SELECT id, directory_id AS "directoryId", status, users_synced AS "usersSynced", groups_synced AS "groupsSynced",
              error, started_at AS "startedAt", finished_at AS "finishedAt", created_at AS "createdAt"
         FROM directory_sync_runs WHERE directory_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [directoryId],
    );
  }

  /** What a directory keeps of its token: the hash, the prefix admins see, and when. */
  private issued(token: string) {
    return { tokenHash: sha256(token), tokenPrefix: token.slice(0, 12), tokenCreatedAt: this.deps.clock.now() };
  }

  /** Platform admins' operations name a directory of any organization. */
  private async anyOrganization(id: string): Promise<Directory> {
    const directory = await Directory.findByPk(id);
    if (!directory) throw errors.notFound('Directory');
    return directory;
  }

  private record(actor: Actor, action: string, directory: Directory, transaction: import('sequelize').Transaction) {
    return this.deps.audit.record(
      actor,
      {
        action,
        targetType: 'directory',
        targetId: directory.id,
        organizationId: directory.organizationId,
        after: { name: directory.name, provider: directory.provider, tokenPrefix: directory.tokenPrefix },
      },
      transaction,
    );
  }
}
