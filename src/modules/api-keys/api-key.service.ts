import type { Sequelize } from 'sequelize';
import type { AppEnv, Plan } from '../../config.ts';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { requireTenant, tenantWhere } from '../../shared/access/tenancy.ts';
import type { Clock } from '../../shared/clock.ts';
import { randomToken, sha256 } from '../../shared/crypto.ts';
import { errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { ApiKey } from './api-key.model.ts';
import { toApiKeyDto } from './api-key.mapper.ts';

const PREFIX_LENGTH = 12;
/** lastUsedAt is a hint, not a log: write it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthenticatedKey {
  apiKeyId: string;
  organizationId: string;
  plan: Plan;
}

export class ApiKeyService {
  constructor(
    private readonly deps: { sequelize: Sequelize; clock: Clock; audit: AuditService; appEnv: AppEnv },
  ) {}

  /** Keys say which environment they belong to, so a sandbox key is recognisable at a glance. */
  private generate(): string {
    return `gh_${this.deps.appEnv === 'sandbox' ? 'test' : 'live'}_${randomToken(24)}`;
  }

  async create(actor: Actor, input: { name: string }, secret = this.generate()): Promise<{ apiKey: ApiKey; secret: string }> {
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
      await this.deps.audit.record(actor, { action: 'api_key.created', targetType: 'api_key', targetId: apiKey.id, after: toApiKeyDto(apiKey) }, transaction);
      return { apiKey, secret };
    });
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<ApiKey>> {
    assertCan(actor, 'apiKeys:manage');
    const { rows, count } = await ApiKey.findAndCountAll({
      where: tenantWhere(actor),
      order: [['createdAt', 'DESC'], ['id', 'ASC']],
      limit: page.itemsPerPage,
      offset: offsetOf(page),
    });
    return pageOf(rows, count, page);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    assertCan(actor, 'apiKeys:manage');
    await this.deps.sequelize.transaction(async (transaction) => {
      const apiKey = await ApiKey.findOne({ where: tenantWhere(actor, { id }), transaction, lock: transaction.LOCK.UPDATE });
      if (!apiKey) throw errors.notFound('API key', id);
      if (apiKey.revokedAt) return;
      const before = toApiKeyDto(apiKey);
      await apiKey.update({ revokedAt: this.deps.clock.now() }, { transaction });
      await this.deps.audit.record(actor, { action: 'api_key.revoked', targetType: 'api_key', targetId: id, before, after: toApiKeyDto(apiKey) }, transaction);
    });
  }

  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    const [rows] = await this.deps.sequelize.query(
      `SELECT k.id, k.organization_id, k.last_used_at, o.plan
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      { bind: [sha256(secret)] },
    );
    const row = (rows as Array<{ id: string; organization_id: string; last_used_at: Date | null; plan: Plan }>)[0];
    if (!row) return null;
    const now = this.deps.clock.now();
    if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
      // Not awaited: a lost update of a usage hint must not slow or fail the request.
      ApiKey.update({ lastUsedAt: now }, { where: { id: row.id } }).catch(() => undefined);
    }
    return { apiKeyId: row.id, organizationId: row.organization_id, plan: row.plan };
  }
}
