// Two instances of the service against one database (and one Redis when TEST_REDIS_URL is set):
// a plan's hourly limit is a promise, however the requests spread over the instances.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { buildApiKey, buildOrganization } from '../factories/index.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const LIMIT = 300;
/** Fewer requests for the one-at-a-time test; still leased far from the limit (2 a block), exact near it. */
const SEQUENTIAL_LIMIT = 200;
const REQUESTS = LIMIT + 150;

interface Instance {
  url: string;
  server: Server;
}

async function listen(container: Container): Promise<Instance> {
  const server = createServer(createApp(container));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** One file per counter store, so each stays well within the per-file test timeout on a busy machine. */
export function multiInstanceRateLimitTests(counters: 'PostgreSQL' | 'Redis'): void {
  describe(`two instances sharing one database (${counters} counters)`, () => {
    let database: TestDatabase;
    let first: TestApp;
    let second: TestApp | undefined;
    let secondContainer: Container;
    let instances: Instance[];

    before(async () => {
      const env = {
        RATE_LIMIT_STANDARD: String(LIMIT),
        RATE_LIMIT_PROFESSIONAL: String(SEQUENTIAL_LIMIT),
        ...(counters === 'Redis'
          ? { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: `test-${randomUUID()}:` }
          : {}),
      };
      database = await createTestDatabase();
      first = await startTestApp({ env, database });
      if (database.databaseUrl) {
        // a second process would have its own pool and its own limiter: so does this one
        second = await startTestApp({ env, database });
        secondContainer = second.container;
      } else {
        // embedded PGlite serves one process: the second instance shares its connection
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

    async function call(instance: Instance, secret: string) {
      const res = await fetch(`${instance.url}/api/members?itemsPerPage=1`, {
        headers: { Authorization: `Bearer ${secret}` },
      });
      const text = await res.text();
      if (res.status >= 500) console.error(text);
      return {
        status: res.status,
        remaining: Number(res.headers.get('x-ratelimit-remaining')),
        retryAfter: res.headers.get('retry-after'),
      };
    }

    it(`when ${REQUESTS} concurrent requests of one organization spread over both, then exactly ${LIMIT} are allowed`, async () => {
      const { secret } = await buildApiKey((await buildOrganization({ plan: 'standard' })).id);
      const results: Awaited<ReturnType<typeof call>>[] = [];
      // 16 in flight at a time, alternating instances, as a load balancer would spread them
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < REQUESTS) {
            const i = next++;
            results.push(await call(instances[i % 2]!, secret));
          }
        }),
      );
      const allowed = results.filter((r) => r.status === 200);
      const limited = results.filter((r) => r.status === 429);
      assert.equal(allowed.length, LIMIT);
      assert.equal(limited.length, REQUESTS - LIMIT);
      for (const r of limited) {
        assert.equal(r.remaining, 0);
        assert.ok(Number(r.retryAfter) > 0);
      }
      for (const r of allowed) assert.ok(r.remaining >= 0 && r.remaining < LIMIT, `Remaining ${r.remaining}`);
      for (const instance of instances) assert.equal((await call(instance, secret)).status, 429);
    });

    it('when requests alternate between the instances one at a time, then near the limit each Remaining is exact', async () => {
      const { secret } = await buildApiKey((await buildOrganization({ plan: 'professional' })).id);
      const remaining: number[] = [];
      for (let i = 1; i <= SEQUENTIAL_LIMIT; i++) {
        const res = await call(instances[i % 2]!, secret);
        assert.equal(res.status, 200, `request ${i}`);
        remaining.push(res.remaining);
      }
      // within the margin (10%, at least 50) every request is counted alone in the shared store
      assert.deepEqual(
        remaining.slice(SEQUENTIAL_LIMIT - 40),
        Array.from({ length: 40 }, (_, i) => 39 - i),
      );
      assert.equal((await call(instances[0]!, secret)).status, 429);
      assert.equal((await call(instances[1]!, secret)).status, 429);
    });
  });
}
