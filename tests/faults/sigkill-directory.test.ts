// test-runner: own process (it starts and SIGKILLs child processes of the service)
// test-runner: timeout 300 s (two kills and restarts of child processes: 100 s on PGlite on a busy 2-core machine)
// SIGKILL during directory provisioning, then a restart on the same database: no half-written user,
// no user twice, roles as the group memberships say. (a) The API (src/main.ts) is killed while an IdP
// (this test) sends a burst of SCIM creates, PATCHes and group membership changes to /scim/v2; after
// the restart the IdP retries what got no answer as Entra ID does (a create it never heard back from:
// look the userName up first, create only if absent; a PATCH: sent again); two creates and a group
// PATCH are written but their answers dropped, so that case is certain. (b) The worker
// (src/worker.ts) is killed during a pull sync (POST /api/directories/{id}/sync) from the identity
// service's stand-in; after the restart the run ends and the directory holds each listed user once.
// The in-process test app (no workers) shares the database: it adds the directories and queues the sync.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor, tokenFor } from '../factories/index.ts';
import { eventually } from '../factories/webhook-receiver.ts';
import { type ChildService, startChildService } from '../setup/child-service.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  type IdentityServiceStandIn,
  type StandInDirectoryUser,
  startIdentityServiceStandIn,
} from '../support/identity-service-stand-in.ts';
import { expireKilledJob, startWorker, type WorkerProcess } from '../support/worker-process.ts';
import { entraAddMembers, entraGroup, entraRemoveMembers, entraUser } from '../directory/fixtures/entra-requests.ts';
import { addDirectory, expectScim, filter, patchOp, SCIM_JSON, scimClient } from '../directory/fixtures/scim-client.ts';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ROLE_OF = { admins: 'ROLE_CLIENT_ADMIN', staff: 'ROLE_CLIENT_USER', none: 'ROLE_MEMBER' } as const;
type Group = keyof typeof ROLE_OF;

/** One answer of the API, or undefined when none came (connection refused or cut by the kill). */
type Answer = { status: number; body: Record<string, any> | undefined } | undefined;

describe('SIGKILL during directory provisioning, then a restart', () => {
  let t: TestApp;
  let idp: IdentityServiceStandIn;
  let dataDir: string;
  let api: ChildService | undefined;
  let worker: WorkerProcess | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'guildhall-sigkill-directory-'));
    idp = await startIdentityServiceStandIn();
    t = await startTestApp({
      env: { JOBS_ENABLED: 'false', IDENTITY_SERVICE_API_URL: idp.url },
      workers: false,
    });
  });
  after(async () => {
    api?.process.kill('SIGKILL');
    worker?.child.kill('SIGKILL');
    await t?.close();
    await idp?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when the API is killed during a burst of SCIM writes, then after the IdP retries what got no answer every user is whole, once, with the role its groups give', async (ctx) => {
    const directory = await addDirectory(t);
    const local = scimClient(t, directory.token);
    const groupIds = {
      admins: expectScim(await local.post('/Groups', entraGroup('Admins')), 201).id as string,
      staff: expectScim(await local.post('/Groups', entraGroup('Staff')), 201).id as string,
    };
    const startApi = () =>
      startChildService({
        NODE_ENV: 'test',
        DATABASE_URL: t.db.url,
        DATA_DIR: dataDir,
        APP_SECRET: t.config.appSecret!,
        JOBS_ENABLED: 'false',
        SCIM_RATE_LIMIT_PER_MINUTE: '100000',
        // on embedded PGlite the child reaches the test's database through its socket server, one
        // session for every connection: named statements would collide, as behind a transaction pooler
        ...(process.env.DATABASE_URL ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' }),
      });
    api = await startApi();
    const send = async (method: string, url: string, body?: unknown): Promise<Answer> => {
      try {
        const res = await fetch(`http://127.0.0.1:${api!.port}/scim/v2${url}`, {
          method,
          headers: { Authorization: `Bearer ${directory.token}`, 'Content-Type': SCIM_JSON },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined };
      } catch {
        return undefined;
      }
    };

    // 45 people: a third end in Admins (added to Staff, then Admins, then removed from Staff), a third
    // in Staff, a third in no group. Each person's requests go in order, as an IdP sends them.
    const total = 45;
    const people = Array.from({ length: total }, (_, i) => {
      const group: Group = (['admins', 'staff', 'none'] as const)[i % 3]!;
      return { i, group, user: entraUser('sigkill.test'), id: undefined as string | undefined, done: 0 };
    });
    type Person = (typeof people)[number];
    const profile = (p: Person) =>
      patchOp(
        { op: 'Replace', path: 'title', value: `Steward ${p.i}` },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: `Chapter ${p.i % 5}` },
      );
    /** A person's requests after the create, each with the statuses that acknowledge it. */
    const stepsOf = (p: Person): Array<() => Promise<Answer>> => [
      () => send('PATCH', `/Users/${p.id}`, profile(p)),
      ...(p.group === 'admins'
        ? [
            () => send('PATCH', `/Groups/${groupIds.staff}`, entraAddMembers(p.id!)),
            () => send('PATCH', `/Groups/${groupIds.admins}`, entraAddMembers(p.id!)),
            () => send('PATCH', `/Groups/${groupIds.staff}`, entraRemoveMembers(p.id!)),
          ]
        : p.group === 'staff'
          ? [() => send('PATCH', `/Groups/${groupIds.staff}`, entraAddMembers(p.id!))]
          : []),
    ];
    const acknowledged = (answer: Answer) => answer !== undefined && answer.status >= 200 && answer.status < 300;

    // The burst: 6 people at a time; the API is killed once 60 requests are answered, others in flight.
    // A kill rarely lands between a write's commit and its answer; the IdP drops the answers to the 20th
    // and 21st creates and to the 10th group PATCH instead, as a connection cut after the commit would:
    // written, never heard, retried after the restart.
    const dropCreates = new Set([20, 21]);
    const dropGroupPatch = 10;
    let creates = 0;
    let groupPatches = 0;
    const dropped: { userNames: string[]; groupPatch?: string } = { userNames: [] };
    let answered = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    let killed = false;
    /** Answers other than 2xx before the kill: a refusal is a failure of its own, not the fault's. */
    const refused: Answer[] = [];
    const killAt = 60;
    const runPerson = async (p: Person) => {
      if (!p.id) {
        inFlight++;
        const n = ++creates;
        const created = await send('POST', '/Users', p.user);
        inFlight--;
        if (!acknowledged(created)) return void (created && !killed && refused.push(created));
        if (dropCreates.has(n)) return void dropped.userNames.push(p.user.userName);
        answered++;
        p.id = created!.body!.id;
        p.done = 1;
      }
      const steps = stepsOf(p);
      while (!killed && p.done - 1 < steps.length) {
        inFlight++;
        const n = p.done > 1 ? ++groupPatches : 0; // steps after the first are the group PATCHes
        const answer = await steps[p.done - 1]!();
        inFlight--;
        if (!acknowledged(answer)) return void (answer && !killed && refused.push(answer));
        if (n === dropGroupPatch) return void (dropped.groupPatch = p.user.userName);
        answered++;
        p.done++;
      }
    };
    const queue = [...people];
    const lanes = Array.from({ length: 6 }, async () => {
      for (let p = queue.shift(); p && !killed; p = queue.shift()) await runPerson(p);
    });
    let lanesDone = false;
    void Promise.all(lanes).then(() => (lanesDone = true));
    await eventually(async () => answered >= killAt || lanesDone, 90_000);
    assert.deepEqual(
      refused,
      [],
      `every request before the kill answered 2xx; the API's errors:\n${api
        .output()
        .split('\n')
        .filter((line) => /"level":50/.test(line))
        .slice(0, 3)
        .join('\n')}`,
    );
    assert.equal(lanesDone, false, 'the burst was still going at the kill');
    inFlightAtKill = inFlight;
    killed = true;
    api.process.kill('SIGKILL');
    assert.equal(await api.exited, null, 'killed by the signal');
    await Promise.all(lanes);
    const unanswered = people.filter((p) => !p.id).length;
    assert.ok(unanswered > 0, 'the kill landed before every create was answered');
    assert.equal(dropped.userNames.length, 2, 'two creates written and never heard');
    assert.ok(dropped.groupPatch, 'a group PATCH applied and never heard');

    // The restart; the IdP retries each person from the first request it got no answer to.
    api = await startApi();
    let foundOnRetry = 0;
    const found: string[] = [];
    for (const p of people) {
      if (!p.id) {
        const lookup = await send('GET', `/Users?${filter(`userName eq "${p.user.userName}"`)}`);
        assert.equal(lookup?.status, 200);
        if (lookup!.body!.totalResults === 1) {
          foundOnRetry++;
          found.push(p.user.userName);
          p.id = lookup!.body!.Resources[0].id;
        } else {
          assert.equal(lookup!.body!.totalResults, 0);
          const created = await send('POST', '/Users', p.user);
          assert.equal(created?.status, 201, JSON.stringify(created?.body));
          p.id = created!.body!.id;
        }
        p.done = 1;
      }
      const steps = stepsOf(p);
      for (; p.done - 1 < steps.length; p.done++) {
        const answer = await steps[p.done - 1]!();
        assert.ok(acknowledged(answer), `retried request answered ${answer?.status} ${JSON.stringify(answer?.body)}`);
      }
    }

    for (const userName of dropped.userNames)
      assert.ok(found.includes(userName), `${userName}, written unheard, is found by the lookup and not created again`);

    const sql = t.container.sql;
    const accounts = await sql.rows<{
      id: string;
      email: string;
      role: string;
      status: string;
      jobTitle: string | null;
      department: string | null;
      directoryUsers: number;
      members: number;
      provisioned: number;
      memberCreated: number;
      memberEvents: number;
      lastRoleChange: string | null;
    }>(
      `SELECT u.id, u.email, u.role, u.status, u.job_title AS "jobTitle", u.department,
              (SELECT count(*)::int FROM directory_users d WHERE d.user_id = u.id) AS "directoryUsers",
              (SELECT count(*)::int FROM members m WHERE m.user_id = u.id) AS members,
              (SELECT count(*)::int FROM audit_log a
                WHERE a.target_id = u.id::text AND a.action = 'directory.user_provisioned') AS provisioned,
              (SELECT count(*)::int FROM audit_log a JOIN members m ON a.target_id = m.id::text
                WHERE m.user_id = u.id AND a.action = 'member.created') AS "memberCreated",
              (SELECT count(*)::int FROM domain_events e JOIN members m ON e.data->>'id' = m.id::text
                WHERE m.user_id = u.id AND e.type = 'member.created') AS "memberEvents",
              (SELECT a.after->>'after' FROM audit_log a
                WHERE a.target_id = u.id::text AND a.action = 'directory.role_changed'
                ORDER BY a.occurred_at DESC, a.id DESC LIMIT 1) AS "lastRoleChange"
         FROM users u WHERE u.directory_id = $1`,
      [directory.id],
    );
    assert.equal(accounts.length, total, 'one account per person, none twice');
    const byEmail = new Map(accounts.map((a) => [a.email, a]));
    for (const p of people) {
      const account = byEmail.get(p.user.userName.toLowerCase());
      assert.ok(account, `${p.user.userName} has an account`);
      const whole = {
        directoryUsers: account.directoryUsers,
        members: account.members,
        provisioned: account.provisioned,
        memberCreated: account.memberCreated,
        memberEvents: account.memberEvents,
      };
      assert.deepEqual(
        whole,
        { directoryUsers: 1, members: 1, provisioned: 1, memberCreated: 1, memberEvents: 1 },
        `${p.user.userName}: its directory user, member record, audit entries and event, each once`,
      );
      assert.equal(account.status, 'active');
      assert.equal(account.jobTitle, `Steward ${p.i}`, 'the PATCH is applied');
      assert.equal(account.department, `Chapter ${p.i % 5}`);
      assert.equal(account.role, ROLE_OF[p.group], `${p.user.userName} in ${p.group}`);
      // every role change is audited: the last one names the role the account has
      assert.equal(account.lastRoleChange ?? 'ROLE_MEMBER', account.role, 'the role as last audited');
    }
    const orphans = await sql.rows(
      `SELECT d.id FROM directory_users d LEFT JOIN users u ON u.id = d.user_id
        WHERE d.directory_id = $1 AND u.id IS NULL`,
      [directory.id],
    );
    assert.deepEqual(orphans, [], 'no directory user without its account');
    const userNames = await sql.rows<{ n: number; distinct: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT lower(user_name))::int AS distinct FROM directory_users WHERE directory_id = $1',
      [directory.id],
    );
    assert.deepEqual(userNames[0], { n: total, distinct: total }, 'each userName once');
    for (const group of ['admins', 'staff'] as const) {
      const read = await send('GET', `/Groups/${groupIds[group]}`);
      assert.equal(read?.status, 200);
      const members = (read!.body!.members as Array<{ value: string }>).map((m) => m.value).sort();
      assert.deepEqual(
        members,
        people
          .filter((p) => p.group === group)
          .map((p) => p.id!)
          .sort(),
        `${group}: exactly the people the IdP put there`,
      );
    }
    ctx.diagnostic(
      `SCIM: killed after ${answered} answered requests with ${inFlightAtKill} in flight; ${unanswered} creates unanswered (2 of them answers dropped), ${foundOnRetry} of them found written on retry; the dropped group PATCH of ${dropped.groupPatch} sent again`,
    );
    api.process.kill('SIGTERM');
    await api.exited;
    api = undefined;
  });

  it('when the worker is killed during a pull sync, then after a restart the run ends done and every listed user is there once with the role of its groups', async (ctx) => {
    const platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    const organizationId = (await buildOrganization()).id;
    const adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    await t.http
      .put('/api/admin/integrations/identity-service')
      .set(bearer(platformToken))
      .send({
        apiKey: idp.apiKey,
        clientId: idp.clientId,
        redirectUri: 'http://guildhall.test/auth/callback/idp',
        webhookSecret: 'whsec_sigkill_test_0123456789',
      })
      .expect(200);
    const directoryId = (
      await t.http
        .post('/api/admin/directories')
        .set(bearer(platformToken))
        .send({ organizationId, name: 'Entra via WorkOS', provider: 'identity_service', externalId: 'directory_kill' })
        .expect(201)
    ).body.id as string;
    const total = 240;
    const groupOf = (i: number): Group => (['admins', 'staff', 'none'] as const)[i % 3]!;
    const users: StandInDirectoryUser[] = Array.from({ length: total }, (_, i) => ({
      id: `directory_user_${i}`,
      email: `pulled${i}@sigkill.test`,
      first_name: `P${i}`,
      last_name: 'Pulled',
      custom_attributes: { department: 'Operations', job_title: 'Clerk' },
      groups: groupOf(i) === 'none' ? [] : [`directory_group_${groupOf(i)}`],
    }));
    idp.setDirectory('directory_kill', {
      groups: [
        { id: 'directory_group_admins', name: 'Admins' },
        { id: 'directory_group_staff', name: 'Staff' },
      ],
      users,
    });
    idp.pageSize = 100;
    const workerEnv = {
      DATABASE_URL: t.db.url,
      DATA_DIR: dataDir,
      APP_SECRET: t.config.appSecret!,
      JOBS_POLLING_SECONDS: '0.5',
      IDENTITY_SERVICE_API_URL: idp.url,
      ...(process.env.DATABASE_URL ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' }),
    };
    const sql = t.container.sql;
    const written = async () =>
      (await sql.one<{ n: number }>('SELECT count(*)::int AS n FROM directory_users WHERE directory_id = $1', [
        directoryId,
      ]))!.n;
    const runs = () =>
      sql.rows<{ id: string; status: string; finished_at: Date | null; users_synced: number | null }>(
        'SELECT id, status, finished_at, users_synced FROM directory_sync_runs WHERE directory_id = $1 ORDER BY created_at',
        [directoryId],
      );

    worker = startWorker(workerEnv);
    await worker.ready();
    const started = await t.http.post(`/api/directories/${directoryId}/sync`).set(bearer(adminToken)).expect(202);
    const runId = started.body.id as string;
    // killed once a fifth of the users are written, the rest still to come
    await eventually(async () => (await written()) >= total / 5, 90_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    const atKill = await written();
    assert.ok(atKill < total, `the kill landed mid-run (${atKill} of ${total} written)`);
    assert.deepEqual(
      (await runs()).map((r) => [r.id, r.status]),
      [[runId, 'running']],
      'the killed run was never ended by its process',
    );

    await expireKilledJob(sql, t.db.url, 'directory.sync');
    worker = startWorker(workerEnv);
    await worker.ready();
    const ended = await eventually(async () => {
      const run = (await runs()).find((r) => r.id === runId);
      return run && ['done', 'failed'].includes(run.status) && run;
    }, 120_000);
    if (ended.status === 'failed') {
      // a failed run is followed by a new one, which completes
      const again = await t.http.post(`/api/directories/${directoryId}/sync`).set(bearer(adminToken)).expect(202);
      await eventually(async () => (await runs()).find((r) => r.id === again.body.id)?.status === 'done', 120_000);
    } else assert.equal(ended.users_synced, total);
    const all = await runs();
    assert.ok(
      all.every((r) => r.status !== 'running' && r.finished_at !== null),
      `every run is ended: ${JSON.stringify(all)}`,
    );
    assert.equal(all.at(-1)?.status, 'done');

    const held = await sql.rows<{
      externalId: string;
      email: string;
      role: string;
      status: string;
      accounts: number;
      members: number;
    }>(
      `SELECT d.external_id AS "externalId", u.email, u.role, u.status,
              (SELECT count(*)::int FROM users x WHERE lower(x.email) = lower(d.email)) AS accounts,
              (SELECT count(*)::int FROM members m WHERE m.user_id = u.id) AS members
         FROM directory_users d JOIN users u ON u.id = d.user_id WHERE d.directory_id = $1`,
      [directoryId],
    );
    assert.equal(held.length, total, 'each listed user once, no directory user without its account');
    assert.equal(new Set(held.map((h) => h.externalId)).size, total);
    const byExternalId = new Map(held.map((h) => [h.externalId, h]));
    users.forEach((listed, i) => {
      const h = byExternalId.get(listed.id);
      assert.ok(h, `${listed.id} is in the directory`);
      assert.equal(h.email, listed.email);
      assert.equal(h.accounts, 1, `${listed.email}: one account`);
      assert.equal(h.members, 1, `${listed.email}: one member record`);
      assert.equal(h.status, 'active');
      assert.equal(h.role, ROLE_OF[groupOf(i)], `${listed.email} in ${groupOf(i)}`);
    });
    const accounts = await sql.one<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE directory_id = $1', [
      directoryId,
    ]);
    assert.equal(accounts?.n, total, 'no account of the directory besides the listed users');
    const groups = await t.http.get(`/api/directories/${directoryId}/groups`).set(bearer(adminToken)).expect(200);
    assert.deepEqual(
      groups.body.data.map((g: { displayName: string; memberCount: number }) => [g.displayName, g.memberCount]),
      [
        ['Admins', total / 3],
        ['Staff', total / 3],
      ],
    );
    const queue = await sql.rows(
      `SELECT 1 FROM pgboss.job WHERE name = 'directory.sync' AND state IN ('created', 'retry', 'active')`,
    );
    assert.deepEqual(queue, [], 'no sync job left in the queue');
    ctx.diagnostic(
      `pull sync: killed with ${atKill} of ${total} users written; the killed run ended ${ended.status}; ${all.length} run(s)`,
    );
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
    worker = undefined;
  });
});
