// Failed logins per e-mail over a sliding window: every failure is a row with its time, and the
// login closes while LOGIN_MAX_FAILURES of them are younger than LOGIN_THROTTLE_SECONDS. The shared
// rate limiter's clock-aligned windows let twice the limit through across a boundary (5 guesses just
// before it, 5 just after), which is fine for API quotas but not for password guessing. The rows
// are in PostgreSQL, so a lockout holds across instances and restarts.
import type { Clock } from '../../shared/clock.ts';
import type { Sql } from '../../shared/sql.ts';

export class LoginThrottle {
  constructor(private readonly deps: { sql: Sql; clock: Clock; maxFailures: number; windowSeconds: number }) {}

  /** Seconds until the key may try again: 0 while fewer than maxFailures failures are in the window. */
  async retryAfter(key: string): Promise<number> {
    const { sql, clock, maxFailures, windowSeconds } = this.deps;
    const now = clock.now().getTime();
    // the maxFailures-th newest failure in the window: the login opens when it leaves the window
    const row = await sql.one<{ failed_at: Date }>(
      `SELECT failed_at FROM login_failures WHERE key = $1 AND failed_at > $2
        ORDER BY failed_at DESC OFFSET $3 LIMIT 1`,
      [key, new Date(now - windowSeconds * 1000), maxFailures - 1],
    );
    return row ? Math.max(1, Math.ceil((new Date(row.failed_at).getTime() + windowSeconds * 1000 - now) / 1000)) : 0;
  }

  /** Counts a failure; failures that left the window (of any key) go in the same statement, so rows do not pile up. */
  async fail(key: string): Promise<void> {
    const { sql, clock, windowSeconds } = this.deps;
    const now = clock.now();
    await sql.query(
      `WITH expired AS (DELETE FROM login_failures WHERE failed_at <= $3)
       INSERT INTO login_failures (key, failed_at) VALUES ($1, $2)`,
      [key, now, new Date(now.getTime() - windowSeconds * 1000)],
    );
  }

  async lift(key: string): Promise<void> {
    await this.deps.sql.query('DELETE FROM login_failures WHERE key = $1', [key]);
  }
}
