// Fixed-window limits shared by every instance of the service. The window comes from the injected
// clock, so tests move time. See docs in the class comment for how the count stays exact.
import type { Clock } from './clock.ts';
import type { CounterStore } from './rate-limit-counter-store.ts';

export { PostgresCounterStore, RedisCounterStore, type CounterStore } from './rate-limit-counter-store.ts';

export interface LimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  resetAt: Date;
}

interface Window {
  start: Date;
  end: Date;
  resetSeconds: number;
}

interface Entry {
  windowStart: number;
  windowEnd: Date;
  /** The shared total when this instance last changed it (it includes every hit leased here). */
  shared: number;
  /** Hits leased from the shared total and not used yet. */
  unused: number;
  /** The limit the lease was taken under: a lease is not spent under another (a plan changed). */
  limit?: number;
  /** The lease being taken, which requests wait for instead of taking their own. */
  refill?: Promise<boolean>;
  /** Clock time of the last hit, to give back the lease of an idle instance. */
  lastHitAt: number;
  /** Clock time `shared` was last read or written; a lease older than `refreshMs` re-reads it. */
  syncedAt: number;
  /** Bumped by every change of `shared`, so a slow re-read does not overwrite a newer figure. */
  version: number;
  reading: boolean;
}

export interface RateLimiterOptions {
  /** Hits leased per round trip while far from the limit; default 1% of the limit, 1 to 100. */
  leaseSize?: (limit: number) => number;
  /** No leases within this many hits of the limit (at least 10% of it): each hit is decided alone. */
  exactMargin?: number;
  /** A lease unused for this long (by the injected clock) is given back. */
  idleMs?: number;
  /** While hits are served from a lease, the shared total is re-read in the background this often (by the clock). */
  refreshMs?: number;
  /** How often (real time) idle leases and ended windows are swept. */
  sweepIntervalMs?: number;
}

const defaultLeaseSize = (limit: number) => Math.min(100, Math.max(1, Math.floor(limit / 100)));

/**
 * Fixed windows whose count lives in the shared store, changed only by atomic conditional adds
 * ("add n if the total stays within the ceiling"), so no instance can allow a hit another has counted.
 *
 * Far from the limit an instance leases hits in blocks (`leaseSize`) and spends them from memory,
 * taking the next block in the background when half is used: no request waits on the store under
 * steady traffic. Leases stop `exactMargin` before the limit (the store refuses a block that would
 * cross it); from there each hit is one atomic add of 1 with the limit as ceiling, so across any
 * number of instances exactly `limit` hits are allowed. Leased hits already count in the shared
 * total: an instance gives its unused lease back when the store refuses its next one (the limit is
 * near), after `idleMs` without hits, and on close. Refused hits are not counted.
 *
 * Remaining = limit - (shared total as this instance last saw it) + its unused lease: exact for every
 * hit decided alone; while hits are served from a lease the total is re-read in the background every
 * `refreshMs`, so Remaining lags other instances' hits by about that much, and counts their unused
 * leases as used.
 */
export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly leaseSize: (limit: number) => number;
  private readonly exactMargin: number;
  private readonly idleMs: number;
  private readonly sweepIntervalMs: number;
  private readonly refreshMs: number;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: CounterStore,
    private readonly clock: Clock,
    options: RateLimiterOptions = {},
  ) {
    this.leaseSize = options.leaseSize ?? defaultLeaseSize;
    this.exactMargin = options.exactMargin ?? 50;
    this.idleMs = options.idleMs ?? 2000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
    this.refreshMs = options.refreshMs ?? 1000;
  }

  private window(windowSeconds: number, now = this.clock.now().getTime()): Window {
    const size = windowSeconds * 1000;
    const start = Math.floor(now / size) * size;
    return {
      start: new Date(start),
      end: new Date(start + size),
      resetSeconds: Math.ceil((start + size - now) / 1000),
    };
  }

  private entryFor(key: string, w: Window): Entry {
    let entry = this.entries.get(key);
    if (!entry || entry.windowStart !== w.start.getTime()) {
      entry = {
        windowStart: w.start.getTime(),
        windowEnd: w.end,
        shared: 0,
        unused: 0,
        lastHitAt: 0,
        syncedAt: 0,
        version: 0,
        reading: false,
      };
      this.entries.set(key, entry);
      this.scheduleSweep();
    }
    return entry;
  }

  private state(allowed: boolean, remaining: number, limit: number, w: Window): LimitState {
    return {
      allowed,
      limit,
      remaining: Math.max(0, Math.min(limit, remaining)),
      resetSeconds: w.resetSeconds,
      resetAt: w.end,
    };
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const now = this.clock.now().getTime();
    const w = this.window(windowSeconds, now);
    const entry = this.entryFor(key, w);
    entry.lastHitAt = now;
    if (entry.limit !== limit) {
      // a lease taken under a larger limit would let hits past a lowered one: given back first
      entry.limit = limit;
      if (entry.refill) await entry.refill.catch(() => {});
      await this.giveBack(key, entry);
    }
    const lease = Math.max(1, Math.floor(this.leaseSize(limit)));
    const ceiling = limit - Math.max(this.exactMargin, Math.ceil(limit * 0.1));
    const leasable = () => lease > 1 && entry.shared + lease <= ceiling;
    for (;;) {
      if (entry.unused > 0) {
        entry.unused--;
        if (entry.unused <= lease / 2 && !entry.refill && leasable())
          void this.refill(key, entry, lease, ceiling).catch(() => {});
        else if (entry.lastHitAt - entry.syncedAt >= this.refreshMs) this.reread(key, entry);
        return this.state(true, limit - entry.shared + entry.unused, limit, w);
      }
      if (entry.refill) {
        await entry.refill.catch(() => {});
        continue;
      }
      if (!leasable()) break;
      if (!(await this.refill(key, entry, lease, ceiling))) break; // refused: the limit is near
    }
    const total = await this.store.take(key, w.start, w.end, 1, limit);
    if (total === null) {
      entry.shared = Math.max(entry.shared, limit);
      entry.version++;
      return this.state(false, 0, limit, w);
    }
    this.synced(entry, total);
    return this.state(true, limit - total + entry.unused, limit, w);
  }

  /** Takes a lease; false when the store refused it because it would reach into the margin. */
  private refill(key: string, entry: Entry, lease: number, ceiling: number): Promise<boolean> {
    entry.refill = this.store
      .take(key, new Date(entry.windowStart), entry.windowEnd, lease, ceiling)
      .then((total) => {
        if (total === null) {
          // near the limit: give back what is left, so this instance's next hits are decided (and
          // their Remaining reported) by the shared count alone
          entry.shared = Math.max(entry.shared, ceiling - lease + 1);
          entry.version++;
          this.giveBack(key, entry);
          return false;
        }
        this.synced(entry, total);
        entry.unused += lease;
        return true;
      })
      .finally(() => {
        entry.refill = undefined;
      });
    return entry.refill;
  }

  private synced(entry: Entry, shared: number): void {
    entry.shared = shared;
    entry.syncedAt = this.clock.now().getTime();
    entry.version++;
  }

  /** Keeps Remaining current with other instances' hits while this one spends a lease. */
  private reread(key: string, entry: Entry): void {
    if (entry.reading || entry.refill) return;
    entry.reading = true;
    const version = entry.version;
    void this.store
      .peek(key, new Date(entry.windowStart))
      .then(
        (total) => {
          if (entry.version === version && !entry.refill) this.synced(entry, total);
        },
        () => {},
      )
      .finally(() => {
        entry.reading = false;
      });
  }

  async check(key: string, limit: number, windowSeconds: number): Promise<LimitState> {
    const w = this.window(windowSeconds);
    const hits = await this.store.peek(key, w.start);
    return this.state(hits < limit, limit - hits, limit, w);
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    this.entries.delete(key);
    await this.store.reset(key, this.window(windowSeconds).start);
  }

  private scheduleSweep(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sweep().finally(() => {
        if (this.entries.size > 0) this.scheduleSweep();
      });
    }, this.sweepIntervalMs);
    this.timer.unref();
  }

  /** Gives back the leases of keys idle for `idleMs` (all of them with `everything`) and forgets ended windows (so keys seen once do not pile up). */
  async sweep(everything = false): Promise<void> {
    const now = this.clock.now().getTime();
    const releases: Promise<void>[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.windowEnd.getTime() <= now) {
        this.entries.delete(key);
        continue;
      }
      if (entry.unused === 0 || entry.refill || (!everything && now - entry.lastHitAt < this.idleMs)) continue;
      releases.push(this.giveBack(key, entry));
    }
    await Promise.all(releases);
  }

  private giveBack(key: string, entry: Entry): Promise<void> {
    const hits = entry.unused;
    if (hits === 0) return Promise.resolve();
    entry.unused = 0;
    entry.shared -= hits;
    entry.version++;
    // if the release fails the hits stay counted: fewer allowed this window, never more
    return this.store.release(key, new Date(entry.windowStart), hits).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.entries.values()].map((entry) => entry.refill?.catch(() => {})));
    await this.sweep(true);
  }
}
