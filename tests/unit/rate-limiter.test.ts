import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/shared/clock.ts';
import { RateLimiter, type CounterStore } from '../../src/shared/rate-limiter.ts';

/** The shared store as other instances see it, counting round trips. */
class MemoryStore implements CounterStore {
  counts = new Map<string, number>();
  writes = 0;
  async add(key: string, windowStart: Date, _end: Date, hits: number): Promise<number> {
    this.writes++;
    const k = `${key}@${windowStart.getTime()}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + hits);
    return this.counts.get(k)!;
  }
  async peek(key: string, windowStart: Date): Promise<number> {
    return this.counts.get(`${key}@${windowStart.getTime()}`) ?? 0;
  }
  async reset(key: string, windowStart: Date): Promise<void> {
    this.counts.delete(`${key}@${windowStart.getTime()}`);
  }
  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}

describe('RateLimiter', () => {
  it('when far from the limit, then hits are batched; near it every hit is written and the 101st of 100 is refused', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')), { flushIntervalMs: 60_000, exactMargin: 50 });
    const states = [];
    for (let i = 0; i < 101; i++) states.push(await limiter.consume('org:a', 100, 3600));
    assert.ok(store.writes < 60, `expected batching, got ${store.writes} writes for 101 hits`);
    assert.deepEqual(states.slice(0, 100).map((s) => s.allowed), Array(100).fill(true));
    assert.equal(states[100]!.allowed, false);
    assert.deepEqual(states.map((s) => s.remaining).slice(95), [4, 3, 2, 1, 0, 0]);
    assert.equal(store.total(), 101, 'every hit reaches the shared store');
    await limiter.close();
  });

  it('when hits are buffered, then flush writes them and a new window starts from zero', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const limiter = new RateLimiter(store, clock, { flushIntervalMs: 60_000 });
    for (let i = 0; i < 10; i++) await limiter.consume('org:b', 1000, 3600);
    assert.equal(store.total(), 1, 'only the first hit was written through');
    await limiter.flush();
    assert.equal(store.total(), 10);
    clock.advance(3600_000);
    const next = await limiter.consume('org:b', 1000, 3600);
    assert.equal(next.remaining, 999);
    await limiter.close();
  });

  it('when a small limit is used, then every hit is exact even across two limiters on one store', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const a = new RateLimiter(store, clock);
    const b = new RateLimiter(store, clock);
    assert.equal((await a.consume('org:c', 3, 3600)).allowed, true);
    assert.equal((await b.consume('org:c', 3, 3600)).allowed, true);
    assert.equal((await a.consume('org:c', 3, 3600)).allowed, true);
    assert.equal((await b.consume('org:c', 3, 3600)).allowed, false);
  });

  it('when the last write is older than one flush interval but not two, then a hit far from the limit does not wait for the store', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')), { flushIntervalMs: 500 });
    await limiter.consume('org:d', 1000, 3600);
    assert.equal(store.writes, 1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const state = await limiter.consume('org:d', 1000, 3600);
    assert.equal(store.writes, 1, 'counted in memory; the periodic flush writes it');
    assert.equal(state.remaining, 998);
    await limiter.close();
    assert.equal(store.total(), 2);
  });

  it('when this instance was quiet for over two flush intervals, then the next hit re-reads the shared count', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const a = new RateLimiter(store, clock, { flushIntervalMs: 50 });
    const b = new RateLimiter(store, clock, { flushIntervalMs: 50 });
    await a.consume('org:e', 1000, 3600);
    for (let i = 0; i < 100; i++) await b.consume('org:e', 1000, 3600);
    await b.close();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const state = await a.consume('org:e', 1000, 3600);
    assert.equal(state.remaining, 1000 - 102, "the other instance's hits are seen");
    await a.close();
  });
});

