// One-way sync, Guildhall -> HubSpot. Member changes land in crm_sync_queue (one row per member: a
// second change before the send coalesces into it) and a `crm.sync` job drains the organization's
// queue in batches of up to 100 contacts, upserted by e-mail:
// - each call takes a slot of the portal's rolling burst budget first (crm-budget.ts);
// - a row leaves the queue only when HubSpot took its record or refused it (then it is a sync error,
//   retried by id); a record changed again during the send stays queued (its version moved on);
// - a batch refused as a whole is split in halves until the records that cause it are found;
// - 429: the run ends `partial`, what was sent stays sent, the rest waits for Retry-After;
// - a refused token: the connection needs re-authorization, the run stops, the queue is kept.
// One run per organization at a time (a lease on the connection row), so nothing is sent twice by two
// workers; a run that outlived its lease (another took it) stops before its next batch and leaves the
// new holder's lease alone; a process dying between HubSpot's answer and our acknowledgement re-sends that batch, which
// an upsert by e-mail makes harmless.
import type { Sequelize, Transaction } from 'sequelize';
import { assertCan } from '../../shared/access/policy.ts';
import type { Actor } from '../../shared/access/actor.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Sql } from '../../shared/sql.ts';
import {
  type ContactUpsert,
  HubSpotCrm,
  HubSpotError,
  toHubSpotError,
  type HubSpotEndpoint,
} from '../../integrations/hubspot/hubspot.client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { CrmBudget, type Grant } from './crm-budget.ts';
import { type CrmConnectionService, organizationOf, type PortalAccess } from './crm-connection.service.ts';
import { BATCH_SIZE, type Call, chunks } from './crm-batches.ts';
import type { CrmCompanies } from './crm-companies.ts';
import type { CrmErrorLog, FailedRecord } from './crm-error.log.ts';
import type { CrmMappingCheck } from './crm-mapping.check.ts';
import { contactProperties, type MappingEntry } from './crm-mapping.ts';
import { CrmSyncRepository, type Lease, type QueuedRow, type RunCounts } from './crm-sync.repository.ts';

/** Batches sent at once: enough to cover the round trips within the budget's pace (10 calls a second). */
const BATCHES_IN_FLIGHT = 3;
/** A run hands over after this long (real time), so one big resync does not hold a worker for hours. */
const RUN_SLICE_MS = 10 * 60_000;

interface Item {
  row: QueuedRow;
  contact: ContactUpsert;
}

type RunEnd = { status: 'completed' | 'partial' | 'stopped'; detail?: string; resumeAfterMs?: number };

interface Deps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  hubspot: HubSpotEndpoint;
  budget: CrmBudget;
  connections: CrmConnectionService;
  mapping: CrmMappingCheck;
  errorLog: CrmErrorLog;
  companies: CrmCompanies;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class RunInterrupted extends Error {
  constructor(readonly end: RunEnd) {
    super(end.detail);
  }
}

export class CrmSyncService {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly store: CrmSyncRepository;

  constructor(private readonly deps: Deps) {
    this.sleep = deps.sleep ?? defaultSleep;
    this.store = new CrmSyncRepository(deps.sql);
  }

  /**
   * Queues one member's change (a domain-event subscriber, inside the causing transaction) when the
   * organization has a connection, and the job that sends it.
   */
  async enqueue(
    organizationId: string,
    member: { id: string; email: string },
    action: 'upsert' | 'delete',
    transaction: Transaction,
  ): Promise<void> {
    if (await this.store.add(organizationId, member, action, transaction))
      await this.deps.queue.enqueue('crm.sync', { organizationId }, { transaction });
  }

  /** "Sync now": every member of the organization is queued (a full resync, resumable by nature). */
  async syncNow(actor: Actor, organizationId = organizationOf(actor)): Promise<{ queued: number }> {
    assertCan(actor, organizationId === actor.organizationId ? 'integrations:configure' : 'platform:admin');
    const row = await this.deps.connections.row(organizationId);
    if (!row || row.status !== 'connected') {
      throw new AppError('crm_not_connected', 'The organization has no working HubSpot connection');
    }
    return this.deps.sequelize.transaction(async (transaction) => ({
      queued: await this.queueAll(organizationId, transaction),
    }));
  }

  /** Queues every member of the organization and the job (sync now, and a new connection's first sync). */
  async queueAll(organizationId: string, transaction: Transaction): Promise<number> {
    const queued = await this.store.addAll(organizationId, transaction);
    await this.deps.queue.enqueue('crm.sync', { organizationId }, { transaction });
    return queued;
  }

  /** The `crm.sync` job: drains the queue while this worker holds the organization's lease. */
  async run(organizationId: string): Promise<void> {
    for (;;) {
      const lease = await this.store.lease(organizationId);
      if (!lease) return;
      let end: RunEnd | undefined;
      try {
        end = await this.drain(organizationId, lease);
      } finally {
        await this.store.release(organizationId, lease);
      }
      if (end?.resumeAfterMs !== undefined) {
        await this.deps.queue.enqueue(
          'crm.sync',
          { organizationId },
          { startAfter: new Date(this.deps.clock.now().getTime() + end.resumeAfterMs) },
        );
        return;
      }
      // a change queued after our last read found the lease taken and left it to us
      if (end?.status !== 'completed' || !(await this.store.hasQueued(organizationId))) return;
    }
  }

  private async drain(organizationId: string, lease: Lease): Promise<RunEnd | undefined> {
    if (!(await this.store.hasQueued(organizationId))) return undefined;
    const connection = await this.deps.connections.row(organizationId);
    if (!connection || connection.status !== 'connected') return { status: 'stopped' };
    const runId = await this.store.startRun(organizationId);
    const counts: RunCounts = { sent: 0, failed: 0, calls: 0 };
    const started = performance.now();
    let end: RunEnd = { status: 'completed' };
    try {
      let access = await this.access(organizationId);
      let crm = new HubSpotCrm(this.deps.hubspot, access.accessToken);
      const call = async <T>(work: () => Promise<T>) => {
        const grant = await this.takeBudget(organizationId, access.hubId);
        counts.calls += 1;
        return CrmBudget.answered(grant, work);
      };
      const { mapping, skip } = await this.deps.mapping.forRun(organizationId, crm, call);
      for (;;) {
        if (performance.now() - started > RUN_SLICE_MS) {
          end = { status: 'partial', detail: 'handed over to the next run', resumeAfterMs: 0 };
          break;
        }
        const rows = await this.store.nextBatch(organizationId, BATCH_SIZE * BATCHES_IN_FLIGHT);
        if (rows.length === 0) break;
        if (!(await this.store.renew(organizationId, lease))) {
          throw new RunInterrupted({ status: 'partial', detail: 'the lease passed to another run' });
        }
        // a run may outlast the token it started with: refreshed ahead here too, never after a 401
        const current = await this.access(organizationId);
        if (current.accessToken !== access.accessToken) {
          access = current;
          crm = new HubSpotCrm(this.deps.hubspot, access.accessToken);
        }
        const outcome = await this.sendRound(organizationId, rows, connection.delete_policy, {
          crm,
          call,
          mapping,
          skip,
        });
        counts.sent += outcome.sent;
        counts.failed += outcome.failed;
      }
    } catch (error) {
      end = await this.interrupted(organizationId, error);
    } finally {
      await this.store.finishRun(runId, end.status, counts, end.detail);
    }
    return end;
  }

  /**
   * One round: up to BATCHES_IN_FLIGHT batches sent at once (each still takes its own slot of the
   * budget), so HubSpot's latency and ours overlap instead of adding up. A member is in one batch only;
   * companies are created before the batches (once per name), associated after each.
   */
  private async sendRound(
    organizationId: string,
    rows: QueuedRow[],
    deletePolicy: 'mark' | 'archive',
    run: { crm: HubSpotCrm; call: Call; mapping: readonly MappingEntry[]; skip: ReadonlySet<string> },
  ): Promise<{ sent: number; failed: number }> {
    const { crm, call, mapping, skip } = run;
    const deletions = deletePolicy === 'archive' ? rows.filter((r) => r.action === 'delete') : [];
    const upserts = rows.filter((r) => !deletions.includes(r));
    for (const chunk of chunks(deletions, BATCH_SIZE)) await this.archive(organizationId, chunk, crm, call);
    if (upserts.length === 0) return { sent: 0, failed: 0 };
    const { companies: employers } = this.deps;
    const companies = await employers.step(organizationId, () => employers.ensure(organizationId, upserts, crm, call));
    const outcomes = await Promise.allSettled(
      chunks(upserts, BATCH_SIZE).map(async (batch) => {
        const items = batch.map((row) => ({
          row,
          contact: { email: row.email, properties: contactProperties(row, mapping, skip, row.action === 'delete') },
        }));
        const outcome = await this.sendSplitting(organizationId, items, crm, call);
        if (companies) {
          await employers.step(organizationId, () => employers.associate(organizationId, batch, companies, crm, call));
        }
        return outcome;
      }),
    );
    // what went through is acknowledged already; the first interruption (a 429, a refused token) ends the run
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (refused) throw refused.reason;
    return outcomes.reduce(
      (sum, o) =>
        o.status === 'fulfilled' ? { sent: sum.sent + o.value.sent, failed: sum.failed + o.value.failed } : sum,
      { sent: 0, failed: 0 },
    );
  }

  private async access(organizationId: string): Promise<PortalAccess> {
    try {
      return await this.deps.connections.access(organizationId);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw toHubSpotError(error);
    }
  }

  /** What ends a run early: a rate limit, a refused token, or an outage (the job retries). */
  private async interrupted(organizationId: string, error: unknown): Promise<RunEnd> {
    if (error instanceof RunInterrupted) return error.end;
    if (error instanceof AppError && error.code === 'crm_not_connected')
      return { status: 'stopped', detail: error.message };
    const failure = error instanceof HubSpotError ? error : undefined;
    if (failure?.rateLimited) {
      const seconds = failure.retryAfterSeconds ?? 10;
      return {
        status: 'partial',
        detail: `HubSpot answered 429; resuming after ${seconds} s`,
        resumeAfterMs: seconds * 1000,
      };
    }
    if (failure?.unauthorized) {
      const reason = await this.deps.connections.tokenRefused(organizationId, failure.category);
      await this.deps.errorLog.record(organizationId, [
        { type: 'auth', crmError: failure.category, property: null, recordId: null, httpStatus: 401, message: reason },
      ]);
      return { status: 'stopped', detail: reason };
    }
    this.deps.logger.warn({ err: error, organizationId }, 'CRM sync run failed; the job will retry');
    await this.store.lastError(organizationId, error instanceof Error ? error.message : String(error));
    throw error;
  }

  /** Waits for a slot of the portal's rolling budget; the daily budget ends the run until tomorrow. */
  private async takeBudget(organizationId: string, hubId: string): Promise<Extract<Grant, { granted: true }>> {
    for (;;) {
      const grant = await this.deps.budget.take(organizationId, hubId);
      if (grant.granted) return grant;
      if (grant.daily) {
        throw new RunInterrupted({ status: 'partial', detail: 'daily CRM budget used', resumeAfterMs: grant.waitMs });
      }
      await this.sleep(Math.min(grant.waitMs, 10_000));
    }
  }

  /** Sends a batch; when HubSpot refuses it as a whole, each half alone, down to the records at fault. */
  private async sendSplitting(
    organizationId: string,
    items: Item[],
    crm: HubSpotCrm,
    call: Call,
  ): Promise<{ sent: number; failed: number }> {
    let answer: Awaited<ReturnType<HubSpotCrm['upsertContacts']>>;
    try {
      answer = await call(() => crm.upsertContacts(items.map((item) => item.contact)));
    } catch (error) {
      const failure = toHubSpotError(error);
      if (!failure.refusesInput) throw failure;
      if (items.length === 1) {
        await this.settle(organizationId, [], [{ item: items[0] as Item, failure }]);
        return { sent: 0, failed: 1 };
      }
      const middle = Math.ceil(items.length / 2);
      const first = await this.sendSplitting(organizationId, items.slice(0, middle), crm, call);
      const second = await this.sendSplitting(organizationId, items.slice(middle), crm, call);
      return { sent: first.sent + second.sent, failed: first.failed + second.failed };
    }
    const byEmail = new Map(items.map((item) => [item.contact.email.toLowerCase(), item]));
    const failed = answer.failures.flatMap((refusal) => {
      const item = refusal.email ? byEmail.get(refusal.email.toLowerCase()) : undefined;
      if (!item) return [];
      byEmail.delete(refusal.email?.toLowerCase() as string);
      return [{ item, failure: new HubSpotError(400, refusal.category, refusal.message, refusal.property) }];
    });
    const ids = new Map(answer.contacts.map((contact) => [contact.email.toLowerCase(), contact.id]));
    const sent = [...byEmail.values()].flatMap((item) => {
      const id = ids.get(item.contact.email.toLowerCase());
      return id ? [{ item, contactId: id }] : [];
    });
    await this.settle(organizationId, sent, failed);
    return { sent: sent.length, failed: failed.length };
  }

  /** Acknowledges what HubSpot took and parks what it refused, in one transaction. */
  private async settle(
    organizationId: string,
    sent: Array<{ item: Item; contactId: string }>,
    failed: Array<{ item: Item; failure: HubSpotError }>,
  ): Promise<void> {
    const settled = [...sent.map((s) => s.item), ...failed.map((f) => f.item)];
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.store.acknowledge(
        organizationId,
        settled.map((i) => i.row),
        transaction,
      );
      if (sent.length > 0) {
        const contacts = sent.map((s) => ({ memberId: s.item.row.member_id, contactId: s.contactId }));
        await this.store.recordSent(organizationId, contacts, transaction);
      }
      const records = failed.map(({ item, failure }) => contactSyncError(item.row.member_id, failure));
      if (records.length > 0) await this.deps.errorLog.record(organizationId, records, transaction);
      await this.store.countSettled(organizationId, sent.length, failed.length, transaction);
    });
  }

  /**
   * Members deleted where the organization chose to delete their contacts: archived by contact id.
   * An archive HubSpot refuses (a 400) is an error of each member in it and leaves the queue like a
   * refused record: retried, it would hold up every change after it.
   */
  private async archive(organizationId: string, rows: QueuedRow[], crm: HubSpotCrm, call: Call): Promise<void> {
    const memberIds = rows.map((r) => r.member_id);
    const known = await this.store.knownContacts(organizationId, memberIds);
    let refusal: HubSpotError | null = null;
    if (known.length > 0) {
      try {
        await call(() => crm.archiveContacts(known.map((k) => k.contact_id)));
      } catch (error) {
        refusal = toHubSpotError(error);
        if (!refusal.refusesInput) throw refusal;
      }
    }
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.store.acknowledge(organizationId, rows, transaction);
      await this.store.forgetContacts(organizationId, memberIds, transaction);
      if (!refusal) return;
      const failure = refusal;
      const records = known.map((contact) =>
        contactSyncError(
          contact.member_id,
          failure,
          `HubSpot refused to archive contact ${contact.contact_id}: ${failure.message}`,
        ),
      );
      await this.deps.errorLog.record(organizationId, records, transaction);
    });
  }
}

/** A member's record HubSpot refused, as the error list shows it. */
function contactSyncError(memberId: string, failure: HubSpotError, message = failure.message): FailedRecord {
  return {
    type: 'contact_sync',
    crmError: failure.category,
    property: failure.property,
    recordId: memberId,
    httpStatus: failure.status,
    message,
  };
}
