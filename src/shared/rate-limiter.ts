// Fixed-window counters shared by every instance of the service: in PostgreSQL by default, in
// Redis when REDIS_URL is set. The window comes from the injected clock, so tests move time.
import type { Redis } from 'ioredis';
import type { Sql } from './sql.ts';
import type { Clock } from './clock.ts';

export interface CounterStore {
  /** Adds `hits` to the window and returns the hits counted so far (including these). */
  add(key: string, windowStart: Date, windowEnd: Date, hits: number): Promise<number>;
  /** Current hits without counting one. */
  peek(key: string, windowStart: Date): Promise<number>;
  reset(key: string, windowStart: Date): Promise<void>;
}

export class PostgresCounterStore implements CounterStore {
  constructor(private readonly sql: Sql) {}

  async add(key: string, windowStart: Date, _windowEnd: Date, hits: number): Promise<number> {
    const row = await this.sql.one<{ hits: number }>(
      `INSERT INTO rate_limit_counters (key, window_start, hits) VALUES ($1, $2, $3)
       ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
       RETURNING hits`,
      [key, windowStart, hits],
    );
    return Number(row!.hits);
  }

  async peek(key: string, windowStart: Date): Promise<number> {
    const row = await this.sql.one<{ hits: number }>('SELECT hits FROM rate_limit_counters WHERE key = $1 AND window_start = $2', [key, windowStart]);
    return Number(row?.hits ?? 0);
  }

  async reset(key: string, windowStart: Date): Promise<void> {
    await this.sql.query('DELETE FROM rate_limit_counters WHERE key = $1 AND window_start = $2', [key, windowStart]);
  }

  /** Old windows are useless; a scheduled job calls this. */
  async purgeBefore(cutoff: Date): Promise<number> {
    return (await this.sql.query('DELETE FROM rate_limit_counters WHERE window_start < $1', [cutoff])).rowCount;
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: Redis) {}

  private keyOf(key: string, windowStart: Date): string {
    return `guildhall:rl:${key}:${windowStart.getTime()}`;
  }

  async add(key: string, windowStart: Date, windowEnd: Date, hits: number): Promise<number> {
    const k = this.keyOf(key, windowStart);
    // expire a little after the window so late readers still see it; real time, since Redis owns expiry
    const ttlMs = Math.max(1000, windowEnd.getTime() - windowStart.getTime()) + 60_000;
    const results = await this.redis.multi().incrby(k, hits).pexpire(k, ttlMs, 'NX').exec();
    return Number(results?.[0]?.[1] ?? 0);
  }

  async peek(key: string, windowStart: Date): Promise<number> {
    return Number((await this.redis.get(this.keyOf(key, windowStart))) ?? 0);
  }

  async reset(key: string, windowStart: Date): Promise<void> {
    await this.redis.del(this.keyOf(key, windowStart));
  }
}

export interface LimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  resetAt: Date;
}

interface LocalWindow {
  windowStart: number;
  windowEnd: Date;
  /** Total in the shared store when this instance last wrote to it. */
  known: number;
  /** Hits counted here but not yet written to the shared store. */
  pending: number;
  /** performance.now() of the last write-through. */
  syncedAt: number;
}

export interface RateLimiterOptions {
  /** How long (real time) hits may wait in memory before being written. */
  flushIntervalMs?: number;
  /** Hits are written through on every request once fewer than this many remain. */
  exactMargin?: number;
}

/**
 * Fixed hourly windows shared by every instance. Far from the limit, hits are counted in memory and
 * written in batches every `flushIntervalMs`, which saves a database write per request; within
 * `exactMargin` of the limit (at least 10% of it) every hit is written through, so the 429 arrives
 * at the limit. The cost: while far from the limit, the Remaining header may lag other instances'
 * traffic by up to two flush intervals.
 *
 * A request waits for the store only when this instance's view is older than two flush intervals
 * (after a quiet spell) or near the limit: under steady traffic the periodic flush keeps the view
 * fresh, so no request pays for it and concurrent requests never queue behind the counter's row lock.
 */
export class RateLimiter {
  private readonly local = new Map<string, LocalWindow>();
  private readonly flushIntervalMs: number;
  private readonly exactMargin: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
    options: RateLimiterOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.exactMargin = options.exactMargin ?? 50;
  }

  private window(windowSeconds: number): { start: Date; end: Date; resetSeconds: number } {
    const now = this.clock.now().getTime();
    const size = windowSeconds * 1000;
    const start = Math.floor(now / size) * size;
    return { start: new Date(start), end: new Date(start + size), resetSeconds: Math.ceil((start + size - now) / 1000) };
  }

  private state(hits: number, limit: number, w: { end: Date; resetSeconds: number }): LimitState {
    return { allowed: hits <= limit, limit, remaining: Math.max(0, limit - hits), resetSeconds: w.resetSeconds, resetAt: w.end };
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const w = this.window(windowSeconds);
    let entry = this.local.get(key);
    if (!entry || entry.windowStart !== w.start.getTime()) {
      entry = { windowStart: w.start.getTime(), windowEnd: w.end, known: 0, pending: 0, syncedAt: -Infinity };
      this.local.set(key, entry);
    }
    const estimate = entry.known + entry.pending + 1;
    const margin = Math.max(this.exactMargin, Math.ceil(limit * 0.1));
    const fresh = performance.now() - entry.syncedAt < 2 * this.flushIntervalMs;
    if (fresh && limit - estimate >= margin) {
      entry.pending++;
      this.scheduleFlush();
      return this.state(estimate, limit, w);
    }
    const hits = entry.pending + 1;
    entry.pending = 0;
    entry.known = await this.store.add(key, w.start, w.end, hits);
    entry.syncedAt = performance.now();
    return this.state(entry.known, limit, w);
  }

  async check(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const w = this.window(windowSeconds);
    const hits = await this.store.peek(key, w.start);
    return { ...this.state(hits, limit, w), allowed: hits < limit };
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    this.local.delete(key);
    await this.store.reset(key, this.window(windowSeconds).start);
  }

  private scheduleFlush(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushIntervalMs);
    this.timer.unref();
  }

  /** Writes buffered hits to the shared store (also on shutdown). */
  async flush(): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const [key, entry] of this.local) {
      if (entry.pending === 0) {
        if (entry.windowEnd.getTime() < this.clock.now().getTime()) this.local.delete(key);
        continue;
      }
      const hits = entry.pending;
      entry.pending = 0;
      writes.push(
        this.store.add(key, new Date(entry.windowStart), entry.windowEnd, hits).then(
          (total) => {
            entry.known = total;
            entry.syncedAt = performance.now();
          },
          () => {
            entry.pending += hits; // keep them for the next attempt
          },
        ),
      );
    }
    await Promise.all(writes);
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
