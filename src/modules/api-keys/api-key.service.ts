import type { Sequelize } from 'sequelize';
import { apiKeyPrefix, type AppEnv, type Plan } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { requireTenant } from '../../shared/access/tenancy.ts';
import type { Clock } from '../../shared/clock.ts';
import { randomToken, sha256 } from '../../shared/crypto.ts';
import { errors } from '../../shared/errors.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/index.ts';
import { ApiKey } from './api-key.model.ts';
import { toApiKeyDto, type ApiKeyRow } from './api-key.mapper.ts';
import { BriefCache } from '../../shared/brief-cache.ts';

const PREFIX_LENGTH = 12;

/** lastUsedAt is a hint, not a log: write it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthenticatedKey {
  apiKeyId: string;
  organizationId: string;
  plan: Plan;
  organizationSuspended: boolean;
}

interface KeyRow {
  id: string;
  organization_id: string;
  last_used_at: Date | null;
  plan: Plan;
  organization_status: string;
}

export class ApiKeyService {
  /** Resolved keys, briefly (see BriefCache); emptied when a key is revoked here. */
  private readonly cache = new BriefCache<KeyRow>();

  constructor(
    private readonly deps: { sequelize: Sequelize; sql: Sql; clock: Clock; audit: AuditService; appEnv: AppEnv },
  ) {}

  /** Keys say which environment they belong to, so a sandbox key is recognisable at a glance. */
  private generate(): string {
    return `${apiKeyPrefix(this.deps.appEnv)}${randomToken(24)}`;
  }

  /** The environment a key's prefix names when it is not this deployment's: such a key is never accepted. */
  otherEnvironmentOf(secret: string): AppEnv | undefined {
    if (secret.startsWith(apiKeyPrefix(this.deps.appEnv))) return undefined;
    return (['production', 'sandbox'] as const).find((env) => secret.startsWith(apiKeyPrefix(env)));
  }

  async create(
    actor: Actor,
    input: { name: string },
    secret = this.generate(),
  ): Promise<{ apiKey: ApiKey; secret: string }> {
    assertCan(actor, 'apiKeys:manage');
    const organizationId = requireTenant(actor);
    return this.deps.sequelize.transaction(async (transaction) => {
      const apiKey = await ApiKey.create(
        {
          organizationId,
          name: input.name,
          prefix: secret.slice(0, PREFIX_LENGTH),
          keyHash: sha256(secret),
          createdByUserId: actor.type === 'user' ? actor.id : null,
        },
        { transaction },
      );
      await this.deps.audit.record(
        actor,
        { action: 'api_key.created', targetType: 'api_key', targetId: apiKey.id, after: toApiKeyDto(apiKey) },
        transaction,
      );
      return { apiKey, secret };
    });
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<ApiKeyRow>> {
    const binds = new Binds();
    const scope = scopeFor(actor, 'apiKey', 'read').sql(binds);
    const filterValues = [...binds.values];
    // plain SQL: this list is the foundation benchmark's hot path
    const [rows, count] = await Promise.all([
      this.deps.sql.rows<ApiKeyRow>(
        `SELECT id, name, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
           FROM api_keys WHERE ${scope} ORDER BY created_at DESC, id ASC LIMIT ${binds.add(page.itemsPerPage)} OFFSET ${binds.add(offsetOf(page))}`,
        binds.values,
      ),
      this.deps.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE ${scope}`, filterValues),
    ]);
    return pageOf(rows, count!.n, page);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    const scope = scopeFor(actor, 'apiKey', 'write');
    await this.deps.sequelize.transaction(async (transaction) => {
      const apiKey = await ApiKey.findOne({ where: scope.where({ id }), transaction, lock: transaction.LOCK.UPDATE });
      if (!apiKey) throw errors.notFound('API key', id);
      if (apiKey.revokedAt) return;
      const before = toApiKeyDto(apiKey);
      await apiKey.update({ revokedAt: this.deps.clock.now() }, { transaction });
      await this.deps.audit.record(
        actor,
        { action: 'api_key.revoked', targetType: 'api_key', targetId: id, before, after: toApiKeyDto(apiKey) },
        transaction,
      );
    });
    // after the commit: a lookup racing the transaction would still have read the key as live
    this.cache.clear();
  }

  /** An organization changed (plan, suspension): no key of this instance is trusted from the cache. */
  forgetAll(): void {
    this.cache.clear();
  }

  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    // a key stored under the other environment's prefix (a demo key set by hand) opens nothing here
    if (!secret.startsWith(apiKeyPrefix(this.deps.appEnv))) return null;
    const hash = sha256(secret);
    const row = await this.cache.get(hash, () => this.lookUp(hash));
    if (!row) return null;
    const now = this.deps.clock.now();
    if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
      row.last_used_at = now;
      // Not awaited: a lost update of a usage hint must not slow or fail the request.
      this.deps.sql.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [row.id, now]).catch(() => undefined);
    }
    return {
      apiKeyId: row.id,
      organizationId: row.organization_id,
      plan: row.plan,
      organizationSuspended: row.organization_status === 'suspended',
    };
  }

  private lookUp(hash: string): Promise<KeyRow | undefined> {
    return this.deps.sql.one<KeyRow>(
      `SELECT k.id, k.organization_id, k.last_used_at, o.plan, o.status AS organization_status
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
  }
}
