// Fixed-window counters shared by every instance of the service: in PostgreSQL by default, in
// Redis when REDIS_URL is set. The window comes from the injected clock, so tests move time.
import type { Redis } from 'ioredis';
import type { Sequelize } from 'sequelize';
import type { Clock } from './clock.ts';

export interface CounterStore {
  /** Adds one hit to the window and returns the hits counted so far (including this one). */
  hit(key: string, windowStart: Date, windowEnd: Date): Promise<number>;
  /** Current hits without counting one. */
  peek(key: string, windowStart: Date): Promise<number>;
  reset(key: string, windowStart: Date): Promise<void>;
}

export class PostgresCounterStore implements CounterStore {
  constructor(private readonly sequelize: Sequelize) {}

  async hit(key: string, windowStart: Date): Promise<number> {
    const [rows] = await this.sequelize.query(
      `INSERT INTO rate_limit_counters (key, window_start, hits) VALUES ($1, $2, 1)
       ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
       RETURNING hits`,
      { bind: [key, windowStart] },
    );
    return Number((rows as Array<{ hits: number }>)[0]!.hits);
  }

  async peek(key: string, windowStart: Date): Promise<number> {
    const [rows] = await this.sequelize.query('SELECT hits FROM rate_limit_counters WHERE key = $1 AND window_start = $2', {
      bind: [key, windowStart],
    });
    return Number((rows as Array<{ hits: number }>)[0]?.hits ?? 0);
  }

  async reset(key: string, windowStart: Date): Promise<void> {
    await this.sequelize.query('DELETE FROM rate_limit_counters WHERE key = $1 AND window_start = $2', { bind: [key, windowStart] });
  }

  /** Old windows are useless; a scheduled job calls this. */
  async purgeBefore(cutoff: Date): Promise<number> {
    const [, meta] = await this.sequelize.query('DELETE FROM rate_limit_counters WHERE window_start < $1', { bind: [cutoff] });
    return (meta as { rowCount?: number }).rowCount ?? 0;
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: Redis) {}

  private keyOf(key: string, windowStart: Date): string {
    return `guildhall:rl:${key}:${windowStart.getTime()}`;
  }

  async hit(key: string, windowStart: Date, windowEnd: Date): Promise<number> {
    const k = this.keyOf(key, windowStart);
    // expire a little after the window so late readers still see it; real time, since Redis owns expiry
    const ttlMs = Math.max(1000, windowEnd.getTime() - windowStart.getTime()) + 60_000;
    const results = await this.redis.multi().incr(k).pexpire(k, ttlMs, 'NX').exec();
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

export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
  ) {}

  private window(windowSeconds: number): { start: Date; end: Date; resetSeconds: number } {
    const now = this.clock.now().getTime();
    const size = windowSeconds * 1000;
    const start = Math.floor(now / size) * size;
    return { start: new Date(start), end: new Date(start + size), resetSeconds: Math.ceil((start + size - now) / 1000) };
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const w = this.window(windowSeconds);
    const hits = await this.store.hit(key, w.start, w.end);
    return { allowed: hits <= limit, limit, remaining: Math.max(0, limit - hits), resetSeconds: w.resetSeconds, resetAt: w.end };
  }

  async check(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const w = this.window(windowSeconds);
    const hits = await this.store.peek(key, w.start);
    return { allowed: hits < limit, limit, remaining: Math.max(0, limit - hits), resetSeconds: w.resetSeconds, resetAt: w.end };
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    await this.store.reset(key, this.window(windowSeconds).start);
  }
}
