import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/shared/clock.ts';
import { RateLimiter, type CounterStore, type LimitState } from '../../src/shared/rate-limiter.ts';

/** The shared store as every instance sees it: atomic like the real ones, a tick of latency, round trips counted. */
class MemoryStore implements CounterStore {
  counts = new Map<string, number>();
  writes = 0;
  private tick = () => new Promise((resolve) => setImmediate(resolve));
  async take(key: string, windowStart: Date, _end: Date, hits: number, ceiling: number): Promise<number | null> {
    await this.tick();
    this.writes++;
    const k = `${key}@${windowStart.getTime()}`;
    const current = this.counts.get(k) ?? 0;
    if (current + hits > ceiling) return null;
    this.counts.set(k, current + hits);
    await this.tick();
    return current + hits;
  }
  async release(key: string, windowStart: Date, hits: number): Promise<void> {
    await this.tick();
    const k = `${key}@${windowStart.getTime()}`;
    this.counts.set(k, Math.max(0, (this.counts.get(k) ?? 0) - hits));
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

const allowedCount = (states: LimitState[]) => states.filter((s) => s.allowed).length;

describe('RateLimiter', () => {
  it('when the limit is lowered (a plan downgrade) while a lease is unspent, then no hit passes the new limit', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')), {
      leaseSize: (limit) => Math.floor(limit / 100),
      exactMargin: 50,
    });
    // 1,000 hits under a limit of 24,000: leased in blocks of 240
    for (let i = 0; i < 1000; i++) assert.equal((await limiter.consume('org:a', 24_000, 3600)).allowed, true);
    // lowered to 1,000: already spent, so the next is refused (an unspent lease made about 100 more pass)
    const after = [];
    for (let i = 0; i < 50; i++) after.push(await limiter.consume('org:a', 1000, 3600));
    assert.equal(allowedCount(after), 0);
    assert.equal(store.total(), 1000, 'the unspent lease was given back');
    await limiter.close();
  });

  it('when far from the limit, then hits are leased in blocks; near it every hit is decided alone and the 101st of 100 is refused', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')), {
      leaseSize: () => 10,
      exactMargin: 50,
    });
    const states = [];
    for (let i = 0; i < 101; i++) states.push(await limiter.consume('org:a', 100, 3600));
    assert.ok(store.writes < 70, `expected leases, got ${store.writes} writes for 101 hits`);
    assert.deepEqual(
      states.slice(0, 100).map((s) => s.allowed),
      Array(100).fill(true),
    );
    assert.equal(states[100]!.allowed, false);
    assert.deepEqual(
      states.map((s) => s.remaining),
      Array.from({ length: 101 }, (_, i) => Math.max(0, 99 - i)),
      'one instance: Remaining is exact',
    );
    assert.equal(store.total(), 100, 'refused hits are not counted');
    await limiter.close();
  });

  it('when two instances take bursts of concurrent hits on one store, then exactly the limit is allowed', async () => {
    for (const limit of [300, 1000, 7]) {
      const store = new MemoryStore();
      const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
      const a = new RateLimiter(store, clock);
      const b = new RateLimiter(store, clock);
      const states: LimitState[] = [];
      for (let burst = 0; burst < (limit * 2) / 20; burst++) {
        states.push(
          ...(await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consume('org:c', limit, 3600)))),
        );
      }
      assert.equal(allowedCount(states), limit, `limit ${limit}`);
      assert.equal(store.total(), limit);
      await a.close();
      await b.close();
    }
  });

  it('when an instance falls idle with part of a lease, then after idleMs by the injected clock it gives it back', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const a = new RateLimiter(store, clock, { leaseSize: () => 10, idleMs: 2000 });
    const b = new RateLimiter(store, clock, { leaseSize: () => 10, idleMs: 2000 });
    await a.consume('org:d', 100, 3600);
    assert.equal(store.total(), 10, 'the lease counts in the shared total');
    clock.advance(1999);
    await a.sweep();
    assert.equal(store.total(), 10, 'not idle yet');
    clock.advance(1);
    await a.sweep();
    assert.equal(store.total(), 1, 'the unused nine came back');
    const states = [];
    for (let i = 0; i < 100; i++) states.push(await b.consume('org:d', 100, 3600));
    assert.equal(allowedCount(states), 99, 'the other instance can use the rest');
    assert.equal((await a.consume('org:d', 100, 3600)).allowed, false);
    await b.close();
    await a.close();
  });

  it('when an instance closes, then its unused lease is given back', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')), { leaseSize: () => 10 });
    for (let i = 0; i < 3; i++) await limiter.consume('org:e', 1000, 3600);
    await limiter.close();
    assert.equal(store.total(), 3);
  });

  it("when another instance counted hits, then this one's Remaining shows them from its next lease on", async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const a = new RateLimiter(store, clock, { leaseSize: () => 4 });
    const b = new RateLimiter(store, clock, { leaseSize: () => 4 });
    assert.equal((await a.consume('org:f', 1000, 3600)).remaining, 999);
    for (let i = 0; i < 100; i++) await b.consume('org:f', 1000, 3600);
    await b.close(); // gives back its unused lease, which would otherwise count as used
    await a.consume('org:f', 1000, 3600);
    await a.consume('org:f', 1000, 3600); // half the lease used: the next is taken in the background
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const state = await a.consume('org:f', 1000, 3600);
    assert.equal(state.remaining, 1000 - 104, "the other instance's hits are seen");
    await a.close();
  });

  it('when an instance spends a lease for longer than refreshMs by the injected clock, then it re-reads the shared total for Remaining', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:00:00Z'));
    const a = new RateLimiter(store, clock, { leaseSize: () => 10, refreshMs: 1000 });
    const b = new RateLimiter(store, clock, { leaseSize: () => 10 });
    assert.equal((await a.consume('org:h', 1000, 3600)).remaining, 999);
    for (let i = 0; i < 50; i++) await b.consume('org:h', 1000, 3600);
    await b.close();
    clock.advance(999);
    assert.equal((await a.consume('org:h', 1000, 3600)).remaining, 998, 'not yet: served from memory');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await a.consume('org:h', 1000, 3600)).remaining, 997, 'still no re-read');
    clock.advance(1);
    assert.equal((await a.consume('org:h', 1000, 3600)).remaining, 996, 'this hit starts the re-read');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await a.consume('org:h', 1000, 3600)).remaining, 1000 - 55, "the other instance's hits are seen");
    assert.equal(store.writes, 1 + 6, 'one lease for a, six for b (the last taken ahead); re-reads write nothing');
    await a.close();
  });

  it('when the window ends, then a new one starts from zero', async () => {
    const store = new MemoryStore();
    const clock = new ManualClock(new Date('2026-01-01T10:59:59Z'));
    const limiter = new RateLimiter(store, clock, { leaseSize: () => 10 });
    for (let i = 0; i < 5; i++) await limiter.consume('org:g', 1000, 3600);
    clock.advance(1000);
    const next = await limiter.consume('org:g', 1000, 3600);
    assert.equal(next.remaining, 999);
    assert.equal(next.resetSeconds, 3600);
    await limiter.close();
  });

  it('when check is asked, then it counts nothing', async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter(store, new ManualClock(new Date('2026-01-01T10:00:00Z')));
    for (let i = 0; i < 3; i++) await limiter.consume('login:x', 3, 900);
    const state = await limiter.check('login:x', 3, 900);
    assert.equal(state.allowed, false);
    assert.equal(store.total(), 3);
    await limiter.reset('login:x', 900);
    assert.equal((await limiter.check('login:x', 3, 900)).allowed, true);
  });
});
