// The identity service's webhook events: recorded by id when they arrive (a replay is acknowledged and
// ignored) with their processing job in the same transaction, then applied by the job. An event names
// our directory by the identity service's directory id: an unknown one, or one that is our own SCIM
// server, is logged and left alone, and nothing an event does reaches beyond that directory (and so
// its organization). Kinds we do not handle are acknowledged, logged and marked processed.
import type { Sequelize, Transaction } from 'sequelize';
import { type Actor, identityServiceActor } from '../../../shared/access/actor.ts';
import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { Sql } from '../../../shared/sql.ts';
import type { AuditService } from '../../audit/index.ts';
import type { Directory } from '../directory.model.ts';
import type { IdpDirectoryWriter } from './idp-directory.writer.ts';
import { groupFromEvent, userFromEvent } from './idp-resources.ts';

export interface IdpEnvelope {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

export interface IdpEventsDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  writer: IdpDirectoryWriter;
  directoryOf: (externalId: string) => Promise<Directory | null>;
  connections: { followIdentityService(actor: Actor, externalConnectionId: string, active: boolean): Promise<number> };
  enqueue: (eventId: string, transaction: Transaction) => Promise<unknown>;
}

/** A user deleted at the identity service within this long is not brought back by a late create or update. */
const TOMBSTONE_MS = 24 * 3600_000;

const text = (value: unknown) => (typeof value === 'string' && value ? value : null);

/** Thrown for an event that cannot be applied as sent (retrying will not help, but the error is kept). */
class MalformedEvent extends Error {}

export class IdpEventsService {
  constructor(private readonly deps: IdpEventsDeps) {}

  /** Records a verified event; false when its id was seen before (then nothing is queued). */
  async receive(envelope: IdpEnvelope): Promise<{ duplicate: boolean }> {
    return this.deps.sequelize.transaction(async (transaction) => {
      const inserted = await this.deps.sql.query(
        `INSERT INTO idp_webhook_events (id, event, payload, received_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO NOTHING`,
        [envelope.id, envelope.event, envelope, this.deps.clock.now()],
        transaction,
      );
      if (inserted.rowCount === 0) return { duplicate: true };
      await this.deps.enqueue(envelope.id, transaction);
      return { duplicate: false };
    });
  }

  /** The job: applies the event once; a failure is kept on the event and its directory, and thrown to retry. */
  async process(eventId: string, logger: Logger): Promise<void> {
    const row = await this.deps.sql.one<{ event: string; payload: IdpEnvelope; processedAt: Date | null }>(
      'SELECT event, payload, processed_at AS "processedAt" FROM idp_webhook_events WHERE id = $1',
      [eventId],
    );
    if (!row || row.processedAt) return;
    const log = logger.child({ idpEventId: eventId, idpEvent: row.event });
    const data = (row.payload.data ?? {}) as Record<string, unknown>;
    let directory: Directory | null = null;
    try {
      if (row.event.startsWith('connection.')) await this.connection(row.event, data, log);
      else if (row.event.startsWith('dsync.')) {
        directory = await this.directoryFor(row.event, data, log);
        if (directory) await this.apply(directory, row.event, data, log);
      } else log.warn('identity-service event of a kind we do not handle: acknowledged, nothing done');
      await this.mark(eventId, null);
    } catch (error) {
      const message = (error as Error).message || String(error);
      await this.mark(eventId, message, error instanceof MalformedEvent);
      if (directory)
        await directory.update({
          lastError: `${row.event} ${eventId}: ${message}`,
          lastErrorAt: this.deps.clock.now(),
        });
      if (error instanceof MalformedEvent) log.warn({ error: message }, 'identity-service event cannot be applied');
      else throw error;
    }
  }

  private async mark(eventId: string, error: string | null, processed = error === null): Promise<void> {
    await this.deps.sql.query(
      `UPDATE idp_webhook_events SET error = $2, processed_at = CASE WHEN $3 THEN $4::timestamptz ELSE processed_at END
        WHERE id = $1`,
      [eventId, error, processed, this.deps.clock.now()],
    );
  }

  private async connection(kind: string, data: Record<string, unknown>, log: Logger): Promise<void> {
    const id = text(data.id);
    if (!id) throw new MalformedEvent('The event names no connection (data.id)');
    if (kind !== 'connection.activated' && kind !== 'connection.deactivated') {
      log.info('identity-service connection event we do not act on');
      return;
    }
    const changed = await this.deps.connections.followIdentityService(
      identityServiceActor(),
      id,
      kind === 'connection.activated',
    );
    log.info({ connection: id, changed }, 'SSO connections followed the identity service');
  }

  /** The directory an event is about: `directory_id`, or the directory itself (dsync.activated / deleted). */
  private async directoryFor(kind: string, data: Record<string, unknown>, log: Logger): Promise<Directory | null> {
    const externalId =
      text(data.directory_id) ??
      (data.object === 'directory' || kind === 'dsync.activated' || kind === 'dsync.deleted' ? text(data.id) : null);
    if (!externalId) throw new MalformedEvent('The event names no directory (data.directory_id)');
    const directory = await this.deps.directoryOf(externalId);
    if (!directory || directory.provider !== 'identity_service') {
      log.warn({ directory: externalId }, 'identity-service event for a directory we do not broker: nothing done');
      return null;
    }
    return directory;
  }

  private async apply(directory: Directory, kind: string, data: Record<string, unknown>, log: Logger): Promise<void> {
    const { writer } = this.deps;
    switch (kind) {
      case 'dsync.activated':
      case 'dsync.deleted':
        return this.setStatus(directory, kind === 'dsync.activated' ? 'active' : 'inactive');
      case 'dsync.user.created':
      case 'dsync.user.updated': {
        const user = required(userFromEvent(data), 'user');
        if (await this.deletedRecently(directory, user.id)) return log.info('late event for a deleted user: ignored');
        await writer.upsertUser(directory, user);
        return;
      }
      case 'dsync.user.deleted':
        await writer.deleteUser(directory, required(text(data.id), 'user'));
        return;
      case 'dsync.group.created':
      case 'dsync.group.updated':
        await writer.upsertGroup(directory, required(groupFromEvent(data), 'group'));
        return;
      case 'dsync.group.deleted':
        await writer.deleteGroup(directory, required(text(data.id), 'group'));
        return;
      case 'dsync.group.user_added': {
        const user = required(userFromEvent(data.user), 'user');
        if (await this.deletedRecently(directory, user.id)) return log.info('late event for a deleted user: ignored');
        return writer.addMember(directory, user, required(groupFromEvent(data.group), 'group'));
      }
      case 'dsync.group.user_removed': {
        const user = required(userFromEvent(data.user), 'user');
        return writer.removeMember(directory, user.id, required(groupFromEvent(data.group), 'group').id);
      }
      default:
        log.warn('identity-service event of a kind we do not handle: acknowledged, nothing done');
    }
  }

  private async setStatus(directory: Directory, status: 'active' | 'inactive'): Promise<void> {
    if (directory.status === status) return;
    await this.deps.sequelize.transaction(async (transaction) => {
      await directory.update({ status }, { transaction });
      await this.deps.audit.record(
        identityServiceActor(directory.organizationId),
        {
          action: status === 'active' ? 'directory.activated' : 'directory.deactivated',
          targetType: 'directory',
          targetId: directory.id,
          organizationId: directory.organizationId,
          after: { status, by: 'identity_service' },
        },
        transaction,
      );
    });
  }

  /** Events arrive in any order: a create or update processed after the user's deletion must not revive them. */
  private async deletedRecently(directory: Directory, userExternalId: string): Promise<boolean> {
    const found = await this.deps.sql.one(
      `SELECT 1 FROM idp_webhook_events
        WHERE received_at > $1 AND event = 'dsync.user.deleted'
          AND payload->'data'->>'id' = $2 AND payload->'data'->>'directory_id' = $3 LIMIT 1`,
      [new Date(this.deps.clock.now().getTime() - TOMBSTONE_MS), userExternalId, directory.externalId],
    );
    return found !== undefined;
  }
}

function required<T>(value: T | null, what: string): T {
  if (value === null) throw new MalformedEvent(`The event carries no usable ${what} (an id is required)`);
  return value;
}
