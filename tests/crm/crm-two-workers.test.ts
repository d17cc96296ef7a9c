// Two instances of the service on one database, each with its own job workers (crm.sync): the
// organization's lease lets one run at a time drain the queue, so every member reaches HubSpot once,
// no batch goes twice, a change made while its batch is in flight is sent again (versioned queue
// rows) and the queue ends empty. HubSpot (the stand-in) holds its upserts while the test looks at
// what is in flight, so the other instance's jobs and runs meet a run that is busy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { registerJobHandlers } from '../../src/jobs/registry.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { memberDefaults } from '../factories/records.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { type HubSpotStandIn, hubSpotEnv, startHubSpotStandIn } from '../support/hubspot-stand-in.ts';

const MEMBERS = 350; // a round of three batches of 100 in flight, then one of 50

interface Instance {
  container: Container;
  http: ReturnType<typeof supertest>;
}

describe('CRM sync with two workers on one database', () => {
  let database: TestDatabase;
  let hub: HubSpotStandIn;
  let first: TestApp;
  let second: TestApp | undefined;
  let instances: [Instance, Instance];

  before(async () => {
    hub = await startHubSpotStandIn({ budget: 1000 });
    const env = {
      ...hubSpotEnv(hub),
      CRM_BURST_LIMIT: '1000',
    };
    database = await createTestDatabase();
    first = await startTestApp({ env, database, workers: true });
    if (database.databaseUrl) {
      // a second process: its own pool, its own job workers
      second = await startTestApp({ env, database, workers: true });
      instances = [first, second];
    } else {
      // embedded PGlite serves one process: the second instance shares its connection, with its own queue workers
      const container = createContainer({
        config: first.config,
        logger: createLogger('silent'),
        db: first.db,
        clock: first.clock,
        appSecret: first.config.appSecret!,
      });
      registerJobHandlers(container);
      await container.queue.start({ workers: true });
      instances = [first, { container, http: supertest(createApp(container)) }];
    }
  });
  after(async () => {
    if (second) await second.close();
    else await instances?.[1].container.close();
    await first?.close();
    await database?.drop();
    await hub?.close();
  });

  const one = async <T>(sql: string, bind: unknown[]): Promise<T> => {
    const [rows] = await first.db.sequelize.query(sql, { bind });
    return (rows as T[])[0] as T;
  };
  async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const queued = async (organizationId: string) =>
    (
      await one<{ n: number }>('SELECT count(*)::int AS n FROM crm_sync_queue WHERE organization_id = $1', [
        organizationId,
      ])
    ).n;
  const leaseHeld = async (organizationId: string) =>
    (
      await one<{ held: boolean }>(
        'SELECT sync_lease_until IS NOT NULL AS held FROM crm_connections WHERE organization_id = $1',
        [organizationId],
      )
    ).held;
  /** crm.sync jobs of the organization by state (pg-boss's table). */
  async function jobStates(organizationId: string): Promise<Record<string, number>> {
    const [rows] = await first.db.sequelize.query(
      `SELECT state::text AS state, count(*)::int AS n FROM pgboss.job
        WHERE name = 'crm.sync' AND data->>'organizationId' = $1 GROUP BY 1`,
      { bind: [organizationId] },
    );
    return Object.fromEntries((rows as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]));
  }
  const emailsOf = (prefix: string) => Array.from({ length: MEMBERS }, (_, n) => `${prefix}${n}@members.test`);
  /** An organization with its members and a client admin; HubSpot's consent given on the first instance, the browser back on the second. */
  async function organizationWithMembers(prefix: string) {
    const organizationId = (await buildOrganization()).id;
    const admin = await tokenFor(first, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    // one INSERT: the factory's member, MEMBERS times
    const members = await Member.bulkCreate(
      emailsOf(prefix).map((email) => ({
        ...memberDefaults,
        organizationId,
        firstName: 'Pat',
        lastName: 'Before',
        email,
      })),
    );
    const connect = async () => {
      const started = await instances[0].http.post('/api/crm/connection').set(bearer(admin)).expect(200);
      const consent = await fetch(new URL(started.body.authorizeUrl), { redirect: 'manual' });
      const back = new URL(consent.headers.get('location') as string);
      const landed = await instances[1].http.get(`${back.pathname}${back.search}`).expect(302);
      assert.equal(landed.headers.location, '/auth/crm/result?result=connected');
    };
    return { organizationId, admin, members, connect };
  }
  /** Every e-mail of the batches HubSpot answered, counted. */
  const upsertsByEmail = () => {
    const counts = new Map<string, number>();
    for (const batch of hub.upsertBatchEmails)
      for (const email of batch) counts.set(email, (counts.get(email) ?? 0) + 1);
    return counts;
  };
  async function runsOf(organizationId: string) {
    const [rows] = await first.db.sequelize.query(
      `SELECT status, contacts_sent, started_at, finished_at FROM crm_sync_runs
        WHERE organization_id = $1 ORDER BY started_at`,
      { bind: [organizationId] },
    );
    return rows as Array<{ status: string; contacts_sent: number; started_at: Date; finished_at: Date | null }>;
  }
  /** One run at a time: each ends before the next starts. */
  function assertRunsApart(runs: Awaited<ReturnType<typeof runsOf>>) {
    for (let i = 1; i < runs.length; i++) {
      const previous = runs[i - 1]!;
      assert.ok(previous.finished_at, `run ${i - 1} finished`);
      assert.ok(
        new Date(previous.finished_at).getTime() <= new Date(runs[i]!.started_at).getTime(),
        `run ${i - 1} ended before run ${i} began`,
      );
    }
  }

  it('when both instances take crm.sync jobs during a run (sync now on each, member edits on each), then every member reaches HubSpot once and a change in flight is sent again', async () => {
    const prefix = 'jobs';
    const { organizationId, admin, members, connect } = await organizationWithMembers(prefix);
    const release = hub.holdUpserts();
    const firstRound: string[][] = [];
    try {
      await connect(); // queues every member and the first job
      await waitFor('the first round in flight', () => hub.heldUpserts.length === 3);
      firstRound.push(...hub.heldUpserts.map((batch) => [...batch]));
      const inFlight = new Set(firstRound.flat());
      assert.equal(inFlight.size, 300, 'three batches of 100, no member in two');

      // "sync now" on each instance: everyone is queued already, so nothing more to queue; a job each
      const syncs = await Promise.all(
        instances.map((instance) => instance.http.post('/api/crm/sync').set(bearer(admin)).expect(202)),
      );
      assert.deepEqual(
        syncs.map((s) => s.body.queued),
        [0, 0],
      );
      // a member whose batch is in flight and one still waiting, edited on different instances
      const sent = members.find((m) => inFlight.has(m.email))!;
      const waiting = members.find((m) => !inFlight.has(m.email))!;
      await instances[1].http
        .put(`/api/members/${sent.id}`)
        .set(bearer(admin))
        .send({ firstName: 'Pat', lastName: 'After', email: sent.email })
        .expect(200);
      await instances[0].http
        .put(`/api/members/${waiting.id}`)
        .set(bearer(admin))
        .send({ firstName: 'Pat', lastName: 'After', email: waiting.email })
        .expect(200);

      // the four new jobs ran on the instances' workers, found the lease taken and left the work to the run
      await waitFor('the other jobs', async () => (await jobStates(organizationId)).completed === 4);
      assert.deepEqual(await jobStates(organizationId), { active: 1, completed: 4 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(hub.heldUpserts, firstRound, 'nothing sent beside the run holding the lease');
      assert.equal(hub.upsertBatchEmails.length, 0);
      release();

      await waitFor(
        'the queue drained',
        async () => (await queued(organizationId)) === 0 && !(await leaseHeld(organizationId)),
      );
      await waitFor('the last job', async () => (await jobStates(organizationId)).active === undefined);
      const counts = upsertsByEmail();
      for (const email of emailsOf(prefix)) {
        assert.equal(counts.get(email), email === sent.email ? 2 : 1, `${email} upserted`);
        assert.equal(hub.contacts.get(email)?.writes, email === sent.email ? 2 : 1);
      }
      assert.equal(
        hub.contacts.get(sent.email)?.properties.lastname,
        'After',
        'the edit made in flight went out after it',
      );
      assert.equal(
        hub.contacts.get(waiting.email)?.properties.lastname,
        'After',
        'the edit made before its batch went with it',
      );
      // no batch twice: the first round, then the rest (the edited member again among them)
      assert.deepEqual(
        hub.upsertBatchSizes.reduce((sum, size) => sum + size, 0),
        MEMBERS + 1,
      );
      const batches = hub.upsertBatchEmails.map((batch) => [...batch].sort().join(','));
      assert.equal(new Set(batches).size, batches.length, 'no batch sent twice');
      assert.deepEqual(await jobStates(organizationId), { completed: 5 });
      const runs = await runsOf(organizationId);
      assertRunsApart(runs);
      assert.ok(runs.every((r) => r.status === 'completed'));
      assert.equal(
        runs.reduce((sum, r) => sum + r.contacts_sent, 0),
        MEMBERS + 1,
      );
    } finally {
      release();
    }
  });

  it('when the crm.sync handler runs on both instances at once, then one run holds the lease and the others leave at once', async () => {
    const prefix = 'handler';
    const { organizationId, admin, connect } = await organizationWithMembers(prefix);
    hub.upsertBatchEmails.length = 0;
    hub.upsertBatchSizes.length = 0;
    hub.hubId += 1; // another portal: one portal serves one organization
    const release = hub.holdUpserts();
    try {
      await connect();
      // the connection's own job and six direct runs of the handler, three on each instance
      const returned: number[] = [];
      const runs = Array.from({ length: 6 }, (_, i) =>
        instances[i % 2]!.container.services.crmSync.run(organizationId).then(() => void returned.push(i)),
      );
      await waitFor('a round in flight', () => hub.heldUpserts.length === 3);
      await waitFor('the runs without the lease', () => returned.length >= 5);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(hub.heldUpserts.length, 3, 'one round in flight, from one run');
      assert.equal(new Set(hub.heldUpserts.flat()).size, 300);
      release();
      await Promise.all(runs);
      await waitFor(
        'the queue drained',
        async () => (await queued(organizationId)) === 0 && !(await leaseHeld(organizationId)),
      );
      await waitFor('the job', async () => (await jobStates(organizationId)).active === undefined);

      const counts = upsertsByEmail();
      assert.equal(counts.size, MEMBERS);
      for (const email of emailsOf(prefix)) assert.equal(counts.get(email), 1, `${email} upserted once`);
      assert.deepEqual(
        hub.upsertBatchSizes.sort((a, b) => b - a),
        [100, 100, 100, 50],
      );
      assertRunsApart(await runsOf(organizationId));
      const status = await instances[1].http.get('/api/crm/connection').set(bearer(admin)).expect(200);
      assert.equal(status.body.status, 'connected');
    } finally {
      release();
    }
  });

  it('when a run outlives its lease and another takes it, then the first stops after its round and leaves the new lease alone', async () => {
    const prefix = 'stale';
    const { organizationId, connect } = await organizationWithMembers(prefix);
    hub.upsertBatchEmails.length = 0;
    hub.hubId += 1;
    let release = hub.holdUpserts();
    try {
      await connect();
      await waitFor('the first run with a round in flight', () => hub.heldUpserts.length === 3);
      // the first run stalls past its lease (120 s; moved here instead of waited for)
      await first.db.sequelize.query(
        `UPDATE crm_connections SET sync_lease_until = now() - interval '1 second' WHERE organization_id = $1`,
        { bind: [organizationId] },
      );
      let secondEnded = false;
      const secondRun = instances[1].container.services.crmSync.run(organizationId).then(() => {
        secondEnded = true;
      });
      // the second run takes the lease and sends the same round again: an expired lease is a second attempt
      await waitFor('the second run with the same round in flight', () => hub.heldUpserts.length === 6);
      const firstRound = new Set(hub.heldUpserts.flat());
      assert.equal(firstRound.size, 300);
      const firstBatches = [...hub.heldUpserts];
      release();
      release = hub.holdUpserts();
      // the released round leaves the list when its answers go out (a tick later): not the last batch
      await waitFor('the first round answered', () => !hub.heldUpserts.some((batch) => firstBatches.includes(batch)));
      // the last 50: sent by the run holding the lease only; the first run stops when it finds its lease gone
      await waitFor('the last batch in flight', () => hub.heldUpserts.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(hub.heldUpserts.length, 1, 'the last batch sent once');
      assert.equal(hub.heldUpserts[0]!.filter((email) => firstRound.has(email)).length, 0);
      assert.ok(await leaseHeld(organizationId), "the first run's end left the second run's lease in place");
      assert.equal(secondEnded, false);
      release();
      await secondRun;
      await waitFor(
        'the queue drained',
        async () => (await queued(organizationId)) === 0 && !(await leaseHeld(organizationId)),
      );
      await waitFor('the job', async () => (await jobStates(organizationId)).active === undefined);
      const counts = upsertsByEmail();
      for (const email of emailsOf(prefix))
        assert.equal(counts.get(email), firstRound.has(email) ? 2 : 1, `${email} upserted`);
      const runs = await runsOf(organizationId);
      assert.deepEqual(runs.map((r) => r.status).sort(), ['completed', 'partial']);
    } finally {
      release();
    }
  });
});
