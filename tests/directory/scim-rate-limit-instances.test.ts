// SCIM's per-directory minute (SCIM_RATE_LIMIT_PER_MINUTE) with two instances of the service on one
// database: an identity provider's requests spread over both, in parallel, are allowed exactly up to
// the limit in total (leased in blocks far from it, one at a time near it); the rest are SCIM errors
// 429 with Retry-After, on either instance, until the next minute.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { addDirectory, ERROR_SCHEMA } from './fixtures/scim-client.ts';

/** Far enough above the exact margin (50) that hits are leased two at a time before it. */
const LIMIT = 200;
const REQUESTS = LIMIT + 80;
const MINUTE_START = new Date('2026-11-27T10:00:05Z');

interface Instance {
  url: string;
  server: Server;
}

async function listen(container: Container): Promise<Instance> {
  const server = createServer(createApp(container));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('SCIM rate limit across two instances on one database', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp | undefined;
  let secondContainer: Container;
  let instances: Instance[];
  /** Both instances' clocks: a second process has its own, set to the same time here. */
  const clocks = () => (second ? [first.clock, second.clock] : [first.clock]);

  before(async () => {
    // the plan's hourly limit at 1: SCIM's budget is its own
    const env = { SCIM_RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_STANDARD: '1' };
    database = await createTestDatabase();
    first = await startTestApp({ env, database });
    if (database.databaseUrl) {
      // a second process would have its own pool and its own limiter: so does this one
      second = await startTestApp({ env, database });
      secondContainer = second.container;
    } else {
      // embedded PGlite serves one process: the second instance shares its connection, with its own limiter
      secondContainer = createContainer({
        config: first.config,
        logger: createLogger('silent'),
        db: first.db,
        clock: first.clock,
        appSecret: first.config.appSecret!,
      });
    }
    instances = [await listen(first.container), await listen(secondContainer)];
  });
  after(async () => {
    for (const instance of instances ?? []) await new Promise((resolve) => instance.server.close(resolve));
    if (second) await second.close();
    else await secondContainer?.close();
    await first?.close();
    await database?.drop();
  });

  async function call(instance: Instance, token: string) {
    const res = await fetch(`${instance.url}/scim/v2/ServiceProviderConfig`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    if (res.status >= 500) console.error(text);
    return {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      body: JSON.parse(text) as Record<string, unknown>,
      remaining: Number(res.headers.get('x-ratelimit-remaining')),
      retryAfter: res.headers.get('retry-after'),
    };
  }

  it(`when ${REQUESTS} concurrent SCIM requests of one directory spread over both, then exactly ${LIMIT} are answered and the rest are SCIM 429s`, async () => {
    for (const clock of clocks()) clock.set(MINUTE_START);
    const { token } = await addDirectory(first);
    const results: Awaited<ReturnType<typeof call>>[] = [];
    // 16 in flight at a time, alternating instances, as a load balancer would spread them
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < REQUESTS) {
          const i = next++;
          results.push(await call(instances[i % 2]!, token));
        }
      }),
    );
    const allowed = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    assert.equal(allowed.length, LIMIT);
    assert.equal(limited.length, REQUESTS - LIMIT);
    for (const r of allowed) assert.ok(r.remaining >= 0 && r.remaining < LIMIT, `Remaining ${r.remaining}`);
    for (const r of limited) {
      // RFC 7644 §3.12, not problem+json
      assert.match(r.contentType, /^application\/scim\+json/);
      assert.deepEqual(r.body.schemas, [ERROR_SCHEMA]);
      assert.equal(r.body.status, '429');
      assert.match(String(r.body.detail), new RegExp(`${LIMIT} SCIM requests per minute`));
      assert.equal(r.retryAfter, '55');
      assert.equal(r.remaining, 0);
    }
    for (const instance of instances) assert.equal((await call(instance, token)).status, 429);

    // another directory keeps its own minute, on either instance
    const other = await addDirectory(first);
    for (const instance of instances) assert.equal((await call(instance, other.token)).status, 200);

    // the next minute: both instances answer again
    for (const clock of clocks()) clock.advance(55_000);
    for (const instance of instances) assert.equal((await call(instance, token)).status, 200);
  });
});
