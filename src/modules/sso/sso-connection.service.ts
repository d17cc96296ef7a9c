// SSO connections of an organization: its client admins (and platform admins, who pick the
// organization with the Guildhall-Organization header) create them, test them, then enable them.
// Settings are checked by the protocol on every save; a connection is enabled only after a test that
// passed since its settings last changed, and only with at least one e-mail domain (a login's e-mail
// must be in one). Enabling and disabling are the domain events connection.activated / deactivated.
import type { Sequelize, Transaction } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { assertCan } from '../../shared/access/policy.ts';
import { tenantWhere } from '../../shared/access/tenancy.ts';
import type { Clock } from '../../shared/clock.ts';
import { decrypt, encrypt } from '../../shared/crypto.ts';
import type { DomainEvents } from '../../shared/domain-events/domain-events.ts';
import { AppError, errors } from '../../shared/errors.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import type { Sql } from '../../shared/sql.ts';
import type { AuditService } from '../audit/index.ts';
import { SsoConnection, type GroupRole, type SsoRole } from './sso-connection.model.ts';
import type {
  ConnectionUrls,
  ProtocolConnection,
  SettingsByKind,
  SsoProtocol,
  SsoProtocolKind,
} from './protocols/sso-protocol.ts';
import type { SamlProtocol } from './protocols/saml.protocol.ts';
import { toConnectionSnapshot } from './sso.mapper.ts';
import { assertNotTheWayIn } from './sso-policy.service.ts';

/** One adapter per protocol; SAML's also writes our service provider metadata. */
export type SsoProtocols = { [K in SsoProtocolKind]: SsoProtocol<K> } & { saml: SamlProtocol };

export interface ConnectionInput {
  name: string;
  protocol: SsoProtocolKind;
  settings: SettingsByKind[SsoProtocolKind];
  /** OIDC's client secret (write-only). */
  clientSecret?: string;
  domains?: string[];
  groupRoles?: GroupRole[];
  defaultRole?: SsoRole;
  allowIdpInitiated?: boolean;
  createMembers?: boolean;
}

export type ConnectionChanges = Partial<Omit<ConnectionInput, 'protocol'>>;

export interface SsoConnectionServiceDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: AuditService;
  publisher: Pick<DomainEvents, 'publish'>;
  protocols: SsoProtocols;
  secretsKey: Buffer;
  baseUrl: string;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export class SsoConnectionService {
  constructor(private readonly deps: SsoConnectionServiceDeps) {}

  /** The addresses generated for a connection (the spec's auto-generated SP entity id, ACS URL, redirect URI). */
  urlsOf(id: string): ConnectionUrls {
    const base = this.deps.baseUrl;
    return {
      spEntityId: `${base}/auth/saml/${id}/metadata`,
      acsUrl: `${base}/auth/saml/${id}/acs`,
      metadataUrl: `${base}/auth/saml/${id}/metadata`,
      redirectUri: `${base}/auth/callback/idp`,
    };
  }

  /** A connection as its protocol adapter sees it (secret unsealed). */
  forProtocol<K extends SsoProtocolKind>(connection: SsoConnection): ProtocolConnection<K> {
    return {
      id: connection.id,
      organizationId: connection.organizationId,
      settings: connection.settings as SettingsByKind[K],
      secret: connection.secretSealed ? decrypt(this.deps.secretsKey, connection.secretSealed) : null,
      allowIdpInitiated: connection.allowIdpInitiated,
      urls: this.urlsOf(connection.id),
    };
  }

  protocolOf<K extends SsoProtocolKind>(kind: K): SsoProtocols[K] {
    return this.deps.protocols[kind];
  }

  /** The adapter of a stored connection, whose kind is only known at run time. */
  private anyProtocol(kind: SsoProtocolKind): SsoProtocol<SsoProtocolKind> {
    return this.deps.protocols[kind] as unknown as SsoProtocol<SsoProtocolKind>;
  }

  async list(actor: Actor, page: PageRequest): Promise<Page<SsoConnection>> {
    assertCan(actor, 'integrations:configure');
    const { rows, count } = await SsoConnection.findAndCountAll({
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

  async get(actor: Actor, id: string): Promise<SsoConnection> {
    assertCan(actor, 'integrations:configure');
    return this.find(actor, id);
  }

  async create(actor: Actor, input: ConnectionInput): Promise<SsoConnection> {
    assertCan(actor, 'integrations:configure');
    const { organizationId } = tenantWhere(actor);
    const protocol = this.anyProtocol(input.protocol);
    const secret = this.secretFor(input.protocol, input.clientSecret, null);
    const settings = await protocol.prepare(input.settings, secret);
    const domains = normaliseDomains(input.domains ?? []);
    return this.deps.sequelize.transaction(async (transaction) => {
      await this.assertDomainsFree(organizationId, domains, transaction);
      await this.assertBrokeredConnectionFree(organizationId, input.protocol, settings, transaction);
      const connection = await SsoConnection.create(
        {
          organizationId,
          name: input.name,
          protocol: input.protocol,
          settings,
          secretSealed: secret ? encrypt(this.deps.secretsKey, secret) : null,
          domains,
          groupRoles: input.groupRoles ?? [],
          defaultRole: input.defaultRole ?? 'ROLE_MEMBER',
          allowIdpInitiated: input.allowIdpInitiated ?? false,
          createMembers: input.createMembers ?? true,
        },
        { transaction },
      );
      await this.record(actor, 'sso.connection_created', connection, null, transaction);
      return connection;
    });
  }

  async update(actor: Actor, id: string, changes: ConnectionChanges): Promise<SsoConnection> {
    assertCan(actor, 'integrations:configure');
    const connection = await this.find(actor, id);
    const before = toConnectionSnapshot(connection);
    const protocol = this.anyProtocol(connection.protocol);
    const settingsChanged = changes.settings !== undefined || changes.clientSecret !== undefined;
    const current = this.forProtocol(connection);
    const secret = this.secretFor(connection.protocol, changes.clientSecret, current.secret);
    const settings = settingsChanged
      ? await protocol.prepare({ ...current.settings, ...changes.settings } as never, secret)
      : connection.settings;
    const domains = changes.domains ? normaliseDomains(changes.domains) : connection.domains;
    return this.deps.sequelize.transaction(async (transaction) => {
      await this.assertDomainsFree(connection.organizationId, domains, transaction, connection.id);
      if (settingsChanged)
        await this.assertBrokeredConnectionFree(
          connection.organizationId,
          connection.protocol,
          settings,
          transaction,
          connection.id,
        );
      if (connection.status === 'active' && domains.length === 0)
        throw errors.validation([{ field: 'domains', message: 'an active connection needs at least one domain' }]);
      await connection.update(
        {
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.groupRoles !== undefined ? { groupRoles: changes.groupRoles } : {}),
          ...(changes.defaultRole !== undefined ? { defaultRole: changes.defaultRole } : {}),
          ...(changes.allowIdpInitiated !== undefined ? { allowIdpInitiated: changes.allowIdpInitiated } : {}),
          ...(changes.createMembers !== undefined ? { createMembers: changes.createMembers } : {}),
          domains,
          settings,
          secretSealed: secret ? encrypt(this.deps.secretsKey, secret) : null,
          // new settings need a new test before the connection can be enabled again
          ...(settingsChanged ? { lastTestOk: null, lastTestedAt: null, lastTestDetail: null } : {}),
        },
        { transaction },
      );
      await this.record(actor, 'sso.connection_updated', connection, before, transaction);
      return connection;
    });
  }

  /** "Test connection": a live check of the saved settings, remembered on the connection. */
  async test(actor: Actor, id: string): Promise<{ connection: SsoConnection; ok: boolean; detail: string }> {
    assertCan(actor, 'integrations:configure');
    const connection = await this.find(actor, id);
    const protocol = this.anyProtocol(connection.protocol);
    let result: { ok: boolean; detail: string };
    try {
      result = await protocol.test(this.forProtocol(connection));
    } catch (error) {
      result = { ok: false, detail: error instanceof AppError ? error.message : 'The test could not run' };
    }
    await this.deps.sequelize.transaction(async (transaction) => {
      await connection.update(
        { lastTestedAt: this.deps.clock.now(), lastTestOk: result.ok, lastTestDetail: result.detail.slice(0, 1000) },
        { transaction },
      );
      await this.record(actor, 'sso.connection_tested', connection, null, transaction, result);
    });
    return { connection, ...result };
  }

  async enable(actor: Actor, id: string): Promise<SsoConnection> {
    assertCan(actor, 'integrations:configure');
    const connection = await this.find(actor, id);
    const refusal = enableRefusal(connection);
    if (refusal) throw new AppError('invalid_connection', refusal);
    return this.setStatus(actor, connection, 'active');
  }

  async disable(actor: Actor, id: string): Promise<SsoConnection> {
    assertCan(actor, 'integrations:configure');
    const connection = await this.find(actor, id);
    if (connection.status === 'active') await assertNotTheWayIn(this.deps.sql, connection);
    return this.setStatus(actor, connection, 'inactive');
  }

  async remove(actor: Actor, id: string): Promise<void> {
    assertCan(actor, 'integrations:configure');
    const connection = await this.find(actor, id);
    if (connection.status === 'active') await assertNotTheWayIn(this.deps.sql, connection);
    await this.deps.sequelize.transaction(async (transaction) => {
      if (connection.status === 'active') await this.publish(actor, 'connection.deactivated', connection, transaction);
      await this.record(actor, 'sso.connection_deleted', connection, toConnectionSnapshot(connection), transaction);
      await connection.destroy({ transaction });
    });
  }

  /**
   * The identity service's connection.activated / deactivated (its inbound webhook): the brokered
   * connections of ours naming that connection follow, within our own lifecycle: a deactivation turns
   * active ones off; an activation turns back on inactive ones that still pass the enable gate (a
   * passed test, a domain). A draft stays a draft: only its organization's admin enables it.
   * Returns how many changed.
   */
  async followIdentityService(actor: Actor, externalConnectionId: string, active: boolean): Promise<number> {
    const connections = await SsoConnection.findAll({
      where: {
        protocol: 'identity_service',
        settings: { connection: externalConnectionId },
        status: active ? 'inactive' : 'active',
      },
    });
    let changed = 0;
    for (const connection of connections) {
      if (active && enableRefusal(connection)) continue;
      await this.setStatus(
        { ...actor, organizationId: connection.organizationId },
        connection,
        active ? 'active' : 'inactive',
      );
      changed++;
    }
    return changed;
  }

  private async setStatus(
    actor: Actor,
    connection: SsoConnection,
    status: 'active' | 'inactive',
  ): Promise<SsoConnection> {
    if (connection.status === status) return connection;
    const wasActive = connection.status === 'active';
    return this.deps.sequelize.transaction(async (transaction) => {
      await connection.update({ status }, { transaction });
      await this.record(
        actor,
        status === 'active' ? 'sso.connection_enabled' : 'sso.connection_disabled',
        connection,
        null,
        transaction,
      );
      if (status === 'active') await this.publish(actor, 'connection.activated', connection, transaction);
      else if (wasActive) await this.publish(actor, 'connection.deactivated', connection, transaction);
      return connection;
    });
  }

  private async find(actor: Actor, id: string): Promise<SsoConnection> {
    const connection = await SsoConnection.findOne({ where: tenantWhere(actor, { id }) });
    if (!connection) throw errors.notFound('SSO connection');
    return connection;
  }

  /** OIDC needs a client secret (given now or kept from before); the other protocols have none. */
  private secretFor(kind: SsoProtocolKind, given: string | undefined, kept: string | null): string | null {
    if (kind !== 'oidc') {
      if (given) throw errors.validation([{ field: 'clientSecret', message: `is only for OIDC connections` }]);
      return null;
    }
    const secret = given || kept;
    if (!secret) throw errors.validation([{ field: 'clientSecret', message: 'is required for an OIDC connection' }]);
    return secret;
  }

  /** An e-mail domain routes to one organization: another organization's claim is a conflict. */
  private async assertDomainsFree(
    organizationId: string,
    domains: string[],
    transaction: Transaction,
    except?: string,
  ): Promise<void> {
    if (domains.length === 0) return;
    const taken = await this.deps.sql.rows<{ d: string }>(
      `SELECT d FROM sso_connections, unnest(domains) AS d
        WHERE d = ANY($1::text[]) AND organization_id <> $2 AND ($3::uuid IS NULL OR id <> $3::uuid)
        LIMIT 1`,
      [domains, organizationId, except ?? null],
      transaction,
    );
    if (taken.length > 0)
      throw new AppError('sso_domain_taken', `${taken[0]!.d} is already claimed by another organization`, {
        errors: [{ field: 'domains', message: `${taken[0]!.d} is claimed by another organization` }],
      });
  }

  /**
   * A connection at the identity service belongs to one organization, as a domain does: its events
   * (connection.activated / deactivated) and sign-ins must not reach another organization's
   * connection that names it too.
   */
  private async assertBrokeredConnectionFree(
    organizationId: string,
    protocol: string,
    settings: object,
    transaction: Transaction,
    except?: string,
  ): Promise<void> {
    const external = (settings as { connection?: unknown }).connection;
    if (protocol !== 'identity_service' || typeof external !== 'string') return;
    const taken = await this.deps.sql.rows<{ id: string }>(
      `SELECT id FROM sso_connections
        WHERE protocol = 'identity_service' AND settings->>'connection' = $1 AND organization_id <> $2
          AND ($3::uuid IS NULL OR id <> $3::uuid)
        LIMIT 1`,
      [external, organizationId, except ?? null],
      transaction,
    );
    if (taken.length > 0)
      throw new AppError('conflict', `The identity service's connection ${external} belongs to another organization`, {
        errors: [{ field: 'settings.connection', message: 'is used by another organization' }],
      });
  }

  private publish(actor: Actor, type: string, connection: SsoConnection, transaction: Transaction): Promise<void> {
    return this.deps.publisher.publish(actor, type, toConnectionSnapshot(connection), transaction);
  }

  private record(
    actor: Actor,
    action: string,
    connection: SsoConnection,
    before: Record<string, unknown> | null,
    transaction: Transaction,
    extra?: Record<string, unknown>,
  ): Promise<void> {
    return this.deps.audit.record(
      actor,
      {
        action,
        targetType: 'sso_connection',
        targetId: connection.id,
        organizationId: connection.organizationId,
        before,
        after: { ...toConnectionSnapshot(connection), ...extra },
      },
      transaction,
    );
  }
}

function normaliseDomains(domains: string[]): string[] {
  const normalised = [...new Set(domains.map((d) => d.trim().toLowerCase().replace(/^@/, '')))];
  const wrong = normalised.find((d) => !DOMAIN.test(d));
  if (wrong !== undefined) throw errors.validation([{ field: 'domains', message: `"${wrong}" is not a domain name` }]);
  return normalised;
}

/** The enable gate: why this connection may not be enabled yet, or null. */
function enableRefusal(connection: SsoConnection): string | null {
  if (connection.lastTestOk !== true) return 'Test the connection successfully before enabling it (POST …/test)';
  if (connection.domains.length === 0) return 'Give the connection at least one e-mail domain before enabling it';
  return null;
}
