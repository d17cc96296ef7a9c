// The deliveries table as the delivery queue: claim due deliveries fairly across organizations
// (FOR UPDATE SKIP LOCKED plus a lease, so two dispatchers never hold the same delivery), record
// attempts in batches, and keep each subscription's circuit breaker.
import type { Sequelize, Transaction } from 'sequelize';
import type { Sql } from '../../shared/sql.ts';
import type { RetiredSecret } from './webhook.secrets.ts';

export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  subscriptionId: string;
  eventId: string;
  /** The attempt count when claimed: recording is conditional on it, so a stale claim records nothing. */
  attemptCount: number;
  retryStep: number;
  url: string;
  secretSealed: string;
  retiredSecrets: RetiredSecret[];
  body: string;
}

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  /** Deliveries wanted in all. */
  slots: number;
  /** At most this many more for an organization (what it already has in flight is taken off). */
  quotaLeft: (organizationId: string) => number;
  /** At most this many more for one subscription's endpoint. */
  endpointQuotaLeft: (subscriptionId: string) => number;
  /** Subscriptions that already have as many deliveries in flight here as one endpoint may: skipped. */
  saturatedSubscriptions: string[];
  /** A subscription with this many failures in a row is half-open: one probe delivery at a time. */
  breakerThreshold: number;
}

export interface ClaimResult {
  deliveries: ClaimedDelivery[];
  /** Due work was left behind because of a quota or the slot count: claim again as soon as slots free. */
  more: boolean;
}

export interface RecordedAttempt {
  deliveryId: string;
  claimedAttemptCount: number;
  status: 'pending' | 'succeeded' | 'failed';
  retryStep: number;
  nextAttemptAt: Date | null;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface BreakerChange {
  subscriptionId: string;
  /** A success was seen: the count starts again from `failures` (those after the last success). */
  reset: boolean;
  failures: number;
}

// Due, not leased, on an active subscription whose circuit is closed (or whose cool-down is over), and
// not on a subscription ($sat) that has its fill of deliveries in flight in this process.
const due = (
  sat: string,
) => `d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
  AND s.status = 'active' AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= $1) AND d.subscription_id <> ALL(${sat}::uuid[])`;

export class WebhookDeliveryRepository {
  constructor(private readonly deps: { sequelize: Sequelize; sql: Sql }) {}

  /**
   * One short transaction. First the organizations with due work, in random order (so none is always
   * last when there are more organizations than slots); each gets an equal share of the slots, capped
   * by its quota; then each organization's oldest due deliveries are locked (SKIP LOCKED: another
   * dispatcher's claim in progress is passed over) and leased. A backlog of one organization thus takes
   * at most its share, and another organization's first delivery is in the very next claim.
   */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const { sql } = this.deps;
    return this.deps.sequelize.transaction(async (transaction) => {
      const organizations = await sql.rows<{ organizationId: string }>(
        `SELECT d.organization_id AS "organizationId"
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE ${due('$3')}
          GROUP BY d.organization_id ORDER BY random() LIMIT $2`,
        [request.now, request.slots, request.saturatedSubscriptions],
        transaction,
      );
      if (organizations.length === 0) return { deliveries: [], more: false };
      const share = Math.ceil(request.slots / organizations.length);
      const quotas = organizations.map(({ organizationId }) =>
        Math.max(0, Math.min(share, request.quotaLeft(organizationId))),
      );
      const rows = await sql.rows<ClaimedDelivery & { consecutiveFailures: number }>(
        `UPDATE webhook_deliveries d SET claimed_until = $4
           FROM (SELECT c.id FROM unnest($2::uuid[], $3::int[]) AS o(organization_id, quota)
                 CROSS JOIN LATERAL (
                   SELECT d.id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
                    WHERE d.organization_id = o.organization_id AND ${due('$5')}
                    -- endpoints that are failing go after the healthy ones of the same organization
                    ORDER BY s.consecutive_failures > 0, d.next_attempt_at LIMIT o.quota
                    FOR UPDATE OF d SKIP LOCKED) c) picked,
                webhook_subscriptions s, webhook_events e
          WHERE d.id = picked.id AND s.id = d.subscription_id AND e.id = d.event_id
          RETURNING d.id, d.organization_id AS "organizationId", d.subscription_id AS "subscriptionId", d.event_id AS "eventId",
                    d.attempt_count AS "attemptCount", d.retry_step AS "retryStep", s.url, s.secret_sealed AS "secretSealed",
                    s.retired_secrets AS "retiredSecrets",
                    s.consecutive_failures AS "consecutiveFailures", e.body`,
        [
          request.now,
          organizations.map((o) => o.organizationId),
          quotas,
          request.leaseUntil,
          request.saturatedSubscriptions,
        ],
        transaction,
      );
      const deliveries = await this.admitByCircuit(rows, request, transaction);
      const limited = quotas.some(
        (quota, i) =>
          quota < share || rows.filter((r) => r.organizationId === organizations[i]!.organizationId).length >= quota,
      );
      return { deliveries, more: limited || organizations.length >= request.slots };
    });
  }

  /**
   * An endpoint gets at most its quota of this claim. A failing one gets no more deliveries at once
   * than it has failures left before its circuit opens, so a dead endpoint cannot fill the slots with attempts that will all time out. Half-open
   * circuits: one delivery per subscription goes out as a probe, if this claim wins the subscription's
   * probe ticket (its circuit is held open for the lease meanwhile). The rest are released at once.
   */
  private async admitByCircuit(
    rows: Array<ClaimedDelivery & { consecutiveFailures: number }>,
    request: ClaimRequest,
    transaction: Transaction,
  ): Promise<ClaimedDelivery[]> {
    const threshold = request.breakerThreshold;
    const halfOpen = [...new Set(rows.filter((r) => r.consecutiveFailures >= threshold).map((r) => r.subscriptionId))];
    const tickets = new Set(
      halfOpen.length === 0
        ? []
        : (
            await this.deps.sql.rows<{ id: string }>(
              `UPDATE webhook_subscriptions SET circuit_open_until = $3
                WHERE id = ANY($1::uuid[]) AND consecutive_failures >= $4 AND (circuit_open_until IS NULL OR circuit_open_until <= $2)
                RETURNING id`,
              [halfOpen, request.now, request.leaseUntil, threshold],
              transaction,
            )
          ).map((r) => r.id),
    );
    const admitted = new Map<string, number>();
    const kept: ClaimedDelivery[] = [];
    const released: string[] = [];
    for (const row of rows) {
      const failures = row.consecutiveFailures;
      const byCircuit =
        failures === 0
          ? Infinity
          : failures < threshold
            ? threshold - failures
            : tickets.has(row.subscriptionId)
              ? 1
              : 0;
      const allowed = Math.min(byCircuit, request.endpointQuotaLeft(row.subscriptionId));
      const count = admitted.get(row.subscriptionId) ?? 0;
      if (count < allowed) {
        admitted.set(row.subscriptionId, count + 1);
        kept.push(row);
      } else released.push(row.id);
    }
    if (released.length)
      await this.deps.sql.query(
        'UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ANY($1::uuid[])',
        [released],
        transaction,
      );
    return kept;
  }

  /** Outcomes and attempt log in one statement; a delivery whose attempt count moved on is left alone. */
  async recordAttempts(attempts: RecordedAttempt[], now: Date): Promise<number> {
    if (attempts.length === 0) return 0;
    const column = <K extends keyof RecordedAttempt>(key: K) => attempts.map((a) => a[key]);
    const { rowCount } = await this.deps.sql.query(
      `WITH o AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::int[], $8::int[], $9::text[], $10::text[])
           AS o(id, claimed_attempt_count, status, retry_step, next_attempt_at, attempted_at, status_code, duration_ms, error, response_excerpt)
       ), updated AS (
         UPDATE webhook_deliveries d
            SET status = o.status, attempt_count = o.claimed_attempt_count + 1, retry_step = o.retry_step,
                next_attempt_at = o.next_attempt_at, last_attempt_at = o.attempted_at, last_status_code = o.status_code,
                last_error = o.error, claimed_until = NULL, updated_at = $11
           FROM o
          WHERE d.id = o.id AND d.status = 'pending' AND d.attempt_count = o.claimed_attempt_count
          RETURNING d.id
       )
       INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
       SELECT o.id, o.attempted_at, o.status_code, o.duration_ms, o.error, o.response_excerpt FROM o JOIN updated USING (id)`,
      [
        column('deliveryId'),
        column('claimedAttemptCount'),
        column('status'),
        column('retryStep'),
        column('nextAttemptAt'),
        column('attemptedAt'),
        column('statusCode'),
        column('durationMs'),
        column('error'),
        column('responseExcerpt'),
        now,
      ],
    );
    return rowCount;
  }

  /** Failures in a row per subscription; at the threshold the circuit opens until `openUntil`. */
  async updateBreakers(changes: BreakerChange[], threshold: number, openUntil: Date): Promise<void> {
    if (changes.length === 0) return;
    await this.deps.sql.query(
      `UPDATE webhook_subscriptions s
          SET consecutive_failures = n.failures,
              circuit_open_until = CASE WHEN n.failures >= $4 THEN $5::timestamptz END
         FROM (SELECT o.id, CASE WHEN o.reset THEN o.failures ELSE s.consecutive_failures + o.failures END AS failures
                 FROM unnest($1::uuid[], $2::bool[], $3::int[]) AS o(id, reset, failures)
                 JOIN webhook_subscriptions s ON s.id = o.id) n
        WHERE s.id = n.id`,
      [
        changes.map((c) => c.subscriptionId),
        changes.map((c) => c.reset),
        changes.map((c) => c.failures),
        threshold,
        openUntil,
      ],
    );
  }

  /** Disabled for good (410 Gone, a secret that cannot be unsealed): visible on the subscription, and its pending deliveries fail. */
  async disableSubscription(subscriptionId: string, reason: string, now: Date): Promise<void> {
    await this.deps.sequelize.transaction(async (transaction) => {
      const { rowCount } = await this.deps.sql.query(
        `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = $2, consecutive_failures = 0, circuit_open_until = NULL, updated_at = $3
          WHERE id = $1 AND status = 'active'`,
        [subscriptionId, reason, now],
        transaction,
      );
      if (rowCount === 0) return;
      await this.deps.sql.query(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL, last_error = $2, updated_at = $3
          WHERE subscription_id = $1 AND status = 'pending'`,
        [subscriptionId, 'subscription disabled', now],
        transaction,
      );
    });
  }

  async isPending(deliveryId: string): Promise<boolean> {
    return (
      (await this.deps.sql.one("SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'pending'", [
        deliveryId,
      ])) !== undefined
    );
  }

  /** Leases given back at shutdown, so the next process need not wait for them to run out. */
  async release(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length)
      await this.deps.sql.query(
        "UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ANY($1::uuid[]) AND status = 'pending'",
        [deliveryIds],
      );
  }
}
