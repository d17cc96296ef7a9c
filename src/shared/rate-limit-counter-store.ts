// The shared count of a fixed window, in PostgreSQL by default or in Redis when REDIS_URL is set.
// Every change is one atomic statement, so instances never overwrite each other's hits.
import type { Redis } from 'ioredis';
import type { Sql } from './sql.ts';

export interface CounterStore {
  /**
   * Adds `hits` to the window only if the total stays within `ceiling`, in one atomic step.
   * Returns the new total, or null when the hits would pass the ceiling (nothing is added).
   */
  take(key: string, windowStart: Date, windowEnd: Date, hits: number, ceiling: number): Promise<number | null>;
  /** Gives back hits taken but not used (a lease an idle instance no longer needs). */
  release(key: string, windowStart: Date, hits: number): Promise<void>;
  /** Current hits without counting one. */
  peek(key: string, windowStart: Date): Promise<number>;
  reset(key: string, windowStart: Date): Promise<void>;
}

export class PostgresCounterStore implements CounterStore {
  constructor(private readonly sql: Sql) {}

  async take(key: string, windowStart: Date, _windowEnd: Date, hits: number, ceiling: number): Promise<number | null> {
    // The row lock of ON CONFLICT DO UPDATE serialises concurrent takes; the WHERE sees the locked row.
    const row = await this.sql.one<{ hits: number }>(
      `INSERT INTO rate_limit_counters (key, window_start, hits) SELECT $1::text, $2::timestamptz, $3::integer WHERE $3::integer <= $4::integer
       ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
         WHERE rate_limit_counters.hits + EXCLUDED.hits <= $4::integer
       RETURNING hits`,
      [key, windowStart, hits, ceiling],
    );
    return row ? Number(row.hits) : null;
  }

  async release(key: string, windowStart: Date, hits: number): Promise<void> {
    await this.sql.query(
      'UPDATE rate_limit_counters SET hits = GREATEST(hits - $3::integer, 0) WHERE key = $1 AND window_start = $2',
      [key, windowStart, hits],
    );
  }

  async peek(key: string, windowStart: Date): Promise<number> {
    const row = await this.sql.one<{ hits: number }>(
      'SELECT hits FROM rate_limit_counters WHERE key = $1 AND window_start = $2',
      [key, windowStart],
    );
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

// KEYS[1] counter; ARGV: hits, ceiling, ttl ms. Scripts run atomically, so check and add are one step.
const TAKE_SCRIPT = `
local hits = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current + hits > tonumber(ARGV[2]) then return -1 end
local total = redis.call('INCRBY', KEYS[1], hits)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return total
`;

const RELEASE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current <= 0 then return 0 end
return redis.call('DECRBY', KEYS[1], math.min(current, tonumber(ARGV[1])))
`;

export class RedisCounterStore implements CounterStore {
  /** `keyPrefix` keeps deployments (and parallel test runs) sharing one Redis apart. */
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = 'guildhall:',
  ) {}

  private keyOf(key: string, windowStart: Date): string {
    return `${this.keyPrefix}rl:${key}:${windowStart.getTime()}`;
  }

  async take(key: string, windowStart: Date, windowEnd: Date, hits: number, ceiling: number): Promise<number | null> {
    // expire a little after the window so late readers still see it; real time, since Redis owns expiry
    const ttlMs = Math.max(1000, windowEnd.getTime() - windowStart.getTime()) + 60_000;
    const total = Number(await this.redis.eval(TAKE_SCRIPT, 1, this.keyOf(key, windowStart), hits, ceiling, ttlMs));
    return total < 0 ? null : total;
  }

  async release(key: string, windowStart: Date, hits: number): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, this.keyOf(key, windowStart), hits);
  }

  async peek(key: string, windowStart: Date): Promise<number> {
    return Number((await this.redis.get(this.keyOf(key, windowStart))) ?? 0);
  }

  async reset(key: string, windowStart: Date): Promise<void> {
    await this.redis.del(this.keyOf(key, windowStart));
  }
}
