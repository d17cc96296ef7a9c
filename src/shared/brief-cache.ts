import { LRUCache } from 'lru-cache';

/** How long an entry is trusted unless its owner says otherwise: the bound on another instance's change. */
export const BRIEF_CACHE_TTL_MS = 2000;

/**
 * Remembers a lookup for a couple of seconds, so a burst of requests does not repeat it: what a bearer
 * credential resolved to (auth, API keys), what opening a resource's file decided (the library).
 * Its owners invalidate on every change made through this process (model hooks, domain events,
 * revocation); other instances see a change within `ttlMs`.
 *
 * Under steady traffic no request waits for a lookup: past half its lifetime an entry is refreshed
 * in the background while callers keep getting it, and callers that miss at the same moment share
 * one lookup (32 connections expiring together would otherwise send 32 identical queries).
 * At most `maxEntries` entries are kept; past that the least recently used one makes room
 * (lru-cache), so a flood of distinct keys never empties the cache of the busy ones.
 */
export class BriefCache<T> {
  private readonly entries: LRUCache<string, { value: T; loadedAt: number }>;
  private readonly loading = new Map<string, Promise<T | undefined>>();
  /** Bumped by every invalidation, so a lookup that started before it cannot store what it read. */
  private generation = 0;

  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.ttlMs = options.ttlMs ?? BRIEF_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
    // ages are kept here, by the injected clock (tests move it), not by lru-cache's own timer
    this.entries = new LRUCache({ max: this.maxEntries });
  }

  /** The remembered value for `key`, or what `load` finds (undefined: nothing to remember). */
  async get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const entry = this.entries.get(key);
    const age = entry ? this.now() - entry.loadedAt : Infinity;
    if (entry && age < this.ttlMs) {
      if (age >= this.ttlMs / 2 && !this.loading.has(key)) this.refresh(key, load).catch(() => undefined);
      return entry.value;
    }
    return this.loading.get(key) ?? this.refresh(key, load);
  }

  private refresh(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const generation = this.generation;
    const pending = load().then((value) => {
      if (generation !== this.generation) return value;
      if (value === undefined) this.entries.delete(key);
      else this.remember(key, value);
      return value;
    });
    this.loading.set(key, pending);
    const settle = () => {
      if (this.loading.get(key) === pending) this.loading.delete(key);
    };
    pending.then(settle, settle);
    return pending;
  }

  private remember(key: string, value: T): void {
    if (this.ttlMs <= 0) return;
    this.entries.set(key, { value, loadedAt: this.now() });
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}
