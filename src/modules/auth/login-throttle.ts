// Failed logins per e-mail over a sliding window: every failure is a row with its time, and the
// login closes while LOGIN_MAX_FAILURES of them are younger than LOGIN_THROTTLE_SECONDS. The shared
// rate limiter's clock-aligned windows let twice the limit through across a boundary (5 guesses just
// before it, 5 just after), which is fine for API quotas but not for password guessing. The rows
// are in PostgreSQL, so a lockout holds across instances and restarts.
import type { Sequelize } from 'sequelize';
import type { Clock } from '../../shared/clock.ts';
import type { Sql } from '../../shared/sql.ts';

/** An attempt taken (counted as a failure until released), or the seconds until one is free. */
export type Attempt = { taken: true; id: string } | { taken: false; retryAfter: number };

export class LoginThrottle {
  constructor(
    private readonly deps: { sequelize: Sequelize; sql: Sql; clock: Clock; maxFailures: number; windowSeconds: number },
  ) {}

  /**
   * Takes one of the key's attempts before its guess is checked: the attempt counts as a failure
   * from now on, until `release` (the guess was right) or `lift` takes it back. Under a lock per key,
   * so the guesses of a parallel burst are counted one after the other: counting first and recording
   * the failure after the slow password check let every request of a burst through the count.
   */
  async take(key: string): Promise<Attempt> {
    const { sequelize, sql, clock, windowSeconds } = this.deps;
    return sequelize.transaction(async (transaction): Promise<Attempt> => {
      await sql.query(`SELECT pg_advisory_xact_lock(hashtext('login-throttle:' || $1))`, [key], transaction);
      const retryAfter = await this.retryAfter(key, transaction);
      if (retryAfter > 0) return { taken: false, retryAfter };
      const now = clock.now();
      // failures that left the window (of any key) go in the same statement, so rows do not pile up
      const row = await sql.one<{ id: string }>(
        `WITH expired AS (DELETE FROM login_failures WHERE failed_at <= $3)
         INSERT INTO login_failures (key, failed_at) VALUES ($1, $2) RETURNING id`,
        [key, now, new Date(now.getTime() - windowSeconds * 1000)],
        transaction,
      );
      return { taken: true, id: String(row!.id) };
    });
  }

  /** Takes back an attempt whose guess was right (the answer may still be a refusal: an inactive account). */
  async release(attemptId: string): Promise<void> {
    await this.deps.sql.query('DELETE FROM login_failures WHERE id = $1', [attemptId]);
  }

  /** Seconds until the key may try again: 0 while fewer than maxFailures failures are in the window. */
  private async retryAfter(key: string, transaction: Parameters<Sql['one']>[2]): Promise<number> {
    const { sql, clock, maxFailures, windowSeconds } = this.deps;
    const now = clock.now().getTime();
    // the maxFailures-th newest failure in the window: the login opens when it leaves the window
    const row = await sql.one<{ failed_at: Date }>(
      `SELECT failed_at FROM login_failures WHERE key = $1 AND failed_at > $2
        ORDER BY failed_at DESC OFFSET $3 LIMIT 1`,
      [key, new Date(now - windowSeconds * 1000), maxFailures - 1],
      transaction,
    );
    return row ? Math.max(1, Math.ceil((new Date(row.failed_at).getTime() + windowSeconds * 1000 - now) / 1000)) : 0;
  }

  /** Clears the key's failures: a successful login, or an operator who reset the account's password. */
  async lift(key: string): Promise<void> {
    await this.deps.sql.query('DELETE FROM login_failures WHERE key = $1', [key]);
  }
}
