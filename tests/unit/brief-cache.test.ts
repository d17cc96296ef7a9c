import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BriefCache } from '../../src/shared/brief-cache.ts';

/** A lookup the test resolves by hand, counting how often it was started. */
function manualLookup<T>() {
  const pending: Array<(value: T | undefined) => void> = [];
  return {
    starts: 0,
    pending,
    load(): Promise<T | undefined> {
      this.starts++;
      return new Promise((resolve) => pending.push(resolve));
    },
  };
}

describe('BriefCache', () => {
  it('when many callers miss at the same moment, then one lookup serves them all', async () => {
    const cache = new BriefCache<string>();
    const lookup = manualLookup<string>();
    const callers = Array.from({ length: 32 }, () => cache.get('k', () => lookup.load()));
    assert.equal(lookup.starts, 1);
    lookup.pending[0]!('row');
    assert.deepEqual(await Promise.all(callers), Array(32).fill('row'));
    assert.equal(await cache.get('k', () => lookup.load()), 'row', 'remembered');
    assert.equal(lookup.starts, 1);
  });

  it('when an entry is past half its life, then callers get it at once while one background lookup refreshes it', async () => {
    let now = 0;
    const cache = new BriefCache<string>({ ttlMs: 2000, now: () => now });
    await cache.get('k', async () => 'old');
    now = 1500;
    const lookup = manualLookup<string>();
    assert.equal(await cache.get('k', () => lookup.load()), 'old');
    assert.equal(await cache.get('k', () => lookup.load()), 'old');
    assert.equal(lookup.starts, 1, 'one refresh, not one per caller');
    lookup.pending[0]!('new');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await cache.get('k', async () => 'unused'), 'new');
  });

  it('when an entry has expired, then the caller waits for a fresh lookup', async () => {
    let now = 0;
    const cache = new BriefCache<string>({ ttlMs: 2000, now: () => now });
    await cache.get('k', async () => 'old');
    now = 2500;
    assert.equal(await cache.get('k', async () => 'new'), 'new');
  });

  it('when the credential changes while a lookup is running, then what that lookup read is not remembered', async () => {
    const cache = new BriefCache<string>();
    const lookup = manualLookup<string>();
    const racing = cache.get('k', () => lookup.load());
    cache.delete('k'); // e.g. the key was revoked and committed meanwhile
    lookup.pending[0]!('live before the revocation');
    assert.equal(await racing, 'live before the revocation');
    assert.equal(await cache.get('k', async () => undefined), undefined, 'the next caller looks it up again');
  });

  it('when a lookup finds nothing, then nothing is remembered', async () => {
    const cache = new BriefCache<string>();
    assert.equal(await cache.get('k', async () => undefined), undefined);
    assert.equal(await cache.get('k', async () => 'created since'), 'created since');
  });

  it('when the cache is full, then the least recently used credential makes room and the busy ones stay', async () => {
    const cache = new BriefCache<string>({ maxEntries: 2 });
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    await cache.get('a', async () => 'unused'); // a is now the most recently used
    await cache.get('c', async () => 'C');
    assert.equal(await cache.get('a', async () => 'reloaded'), 'A', 'kept');
    assert.equal(await cache.get('b', async () => 'reloaded'), 'reloaded', 'evicted');
  });
});
