// POST /api/directories/{id}/sync: a pull of a brokered directory's users and groups from the identity
// service (the real @workos-inc/node client against the loopback stand-in, following its cursor
// pages), written through the same provisioning as SCIM and the webhooks; idempotent, and a failure is
// kept on the run and the directory.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser, mfaVerifiedTokenFor, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  type IdentityServiceStandIn,
  type StandInDirectoryUser,
  startIdentityServiceStandIn,
} from '../support/identity-service-stand-in.ts';

const GROUPS = [
  { id: 'directory_group_admins', name: 'Admins' },
  { id: 'directory_group_staff', name: 'Staff' },
  { id: 'directory_group_books', name: 'Book club' },
];
const person = (n: string, groups: string[], extra: Partial<StandInDirectoryUser> = {}): StandInDirectoryUser => ({
  id: `directory_user_${n}`,
  email: `${n}@sync.test`,
  first_name: n,
  last_name: 'Synced',
  custom_attributes: { department: 'Operations', job_title: 'Clerk' },
  groups,
  ...extra,
});

describe('pull sync of a brokered directory (POST /api/directories/{id}/sync)', () => {
  let t: TestApp;
  let idp: IdentityServiceStandIn;
  let adminToken: string;
  let organizationId: string;
  let directoryId: string;

  async function sync(): Promise<{
    status: string;
    users_synced: number;
    groups_synced: number;
    error: string | null;
  }> {
    const started = await t.http.post(`/api/directories/${directoryId}/sync`).set(bearer(adminToken)).expect(202);
    assert.equal(started.body.status, 'queued');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [rows] = await t.db.sequelize.query(
        'SELECT status, users_synced, groups_synced, error FROM directory_sync_runs WHERE id = $1',
        { bind: [started.body.id] },
      );
      const run = (
        rows as Array<{ status: string; users_synced: number; groups_synced: number; error: string | null }>
      )[0]!;
      if (run.status === 'done' || run.status === 'failed') return run;
      if (Date.now() > deadline) assert.fail(`the sync run is still ${run.status}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
  const account = (n: string) => User.findOne({ where: { email: `${n}@sync.test` } });
  const snapshot = async () => {
    const [rows] = await t.db.sequelize.query(
      `SELECT (SELECT json_agg(json_build_object('id', id, 'v', version, 'active', active) ORDER BY id) FROM directory_users) AS users,
              (SELECT json_agg(json_build_object('id', id, 'v', version, 'name', display_name) ORDER BY id) FROM directory_groups) AS groups,
              (SELECT json_agg(json_build_object('g', group_id, 'u', directory_user_id) ORDER BY group_id, directory_user_id)
                 FROM directory_group_members) AS members,
              (SELECT json_agg(json_build_object('id', id, 'role', role, 'status', status, 'at', updated_at) ORDER BY id)
                 FROM users WHERE directory_id IS NOT NULL) AS accounts,
              (SELECT count(*)::int FROM audit_log WHERE action LIKE 'directory.%' AND action <> 'directory.sync_requested') AS audits`,
    );
    return (rows as unknown[])[0];
  };

  before(async () => {
    idp = await startIdentityServiceStandIn();
    t = await startTestApp({ env: { IDENTITY_SERVICE_API_URL: idp.url }, workers: true });
    const platformToken = await mfaVerifiedTokenFor(t, await buildUser({ role: 'ROLE_PLATFORM_ADMIN' }));
    organizationId = (await buildOrganization()).id;
    adminToken = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    await t.http
      .put('/api/admin/integrations/identity-service')
      .set(bearer(platformToken))
      .send({
        apiKey: idp.apiKey,
        clientId: idp.clientId,
        redirectUri: 'http://guildhall.test/auth/callback/idp',
        webhookSecret: 'whsec_sync_test_0123456789',
      })
      .expect(200);
    const created = await t.http
      .post('/api/admin/directories')
      .set(bearer(platformToken))
      .send({ organizationId, name: 'Entra via WorkOS', provider: 'identity_service', externalId: 'directory_sync' })
      .expect(201);
    directoryId = created.body.id;
    idp.setDirectory('directory_sync', {
      groups: GROUPS,
      users: [
        person('ann', ['directory_group_admins']),
        person('bert', ['directory_group_staff', 'directory_group_books']),
        person('cleo', []),
        person('dirk', ['directory_group_staff'], { state: 'inactive' }),
        person('elsa', ['directory_group_staff', 'directory_group_admins']),
      ],
    });
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  it('when a client admin starts a sync, then 202 and the run brings every listed user and group', async () => {
    const run = await sync();
    assert.deepEqual(run, { status: 'done', users_synced: 5, groups_synced: 3, error: null });
    const lists = idp.requests.filter((r) => r.path === '/directory_users' || r.path === '/directory_groups');
    assert.ok(lists.length >= 5, 'the client followed the pages (2 items each)');
    assert.ok(lists.every((r) => r.authorization === `Bearer ${idp.apiKey}`));
    assert.equal((await account('ann'))?.role, 'ROLE_CLIENT_ADMIN');
    assert.equal((await account('bert'))?.role, 'ROLE_CLIENT_USER');
    assert.equal((await account('cleo'))?.role, 'ROLE_MEMBER');
    assert.equal((await account('dirk'))?.status, 'inactive');
    assert.equal((await account('elsa'))?.role, 'ROLE_CLIENT_ADMIN', 'the highest role wins');
    assert.equal((await account('ann'))?.organizationId, organizationId);
    assert.equal((await account('ann'))?.department, 'Operations');
    const directory = await t.http.get(`/api/directories/${directoryId}`).set(bearer(adminToken)).expect(200);
    assert.ok(directory.body.lastSyncAt);
    assert.equal(directory.body.userCount, 5);
    assert.equal(directory.body.groupCount, 3);
    const groups = await t.http.get(`/api/directories/${directoryId}/groups`).set(bearer(adminToken)).expect(200);
    assert.deepEqual(
      groups.body.data.map((g: { displayName: string; memberCount: number }) => [g.displayName, g.memberCount]),
      [
        ['Admins', 2],
        ['Book club', 1],
        ['Staff', 3],
      ],
    );
  });

  it('when the same sync runs again, then nothing changes (no version, role, status or audit entry)', async () => {
    const before = await snapshot();
    assert.equal((await sync()).status, 'done');
    assert.deepEqual(await snapshot(), before);
  });

  it('when the identity service stops listing a user or a group, then the user is deactivated and the group removed', async () => {
    idp.setDirectory('directory_sync', {
      groups: GROUPS.filter((g) => g.id !== 'directory_group_books'),
      users: [
        person('ann', []),
        person('bert', ['directory_group_staff']),
        person('dirk', ['directory_group_staff'], { state: 'inactive' }),
        person('elsa', ['directory_group_staff', 'directory_group_admins']),
      ],
    });
    assert.deepEqual(await sync(), { status: 'done', users_synced: 4, groups_synced: 2, error: null });
    assert.equal((await account('ann'))?.role, 'ROLE_MEMBER');
    assert.equal((await account('cleo'))?.status, 'inactive');
    assert.equal((await account('bert'))?.status, 'active');
    const groups = await t.http.get(`/api/directories/${directoryId}/groups`).set(bearer(adminToken)).expect(200);
    assert.deepEqual(
      groups.body.data.map((g: { displayName: string }) => g.displayName),
      ['Admins', 'Staff'],
    );
  });

  it('when the identity service refuses the lists, then the run fails and the directory keeps the error', async () => {
    idp.failDirectoryLists(401);
    try {
      const run = await sync();
      assert.equal(run.status, 'failed');
      assert.match(run.error ?? '', /^Sync failed: /);
      const directory = await t.http.get(`/api/directories/${directoryId}`).set(bearer(adminToken)).expect(200);
      assert.match(directory.body.lastError, /^Sync failed: /);
      assert.ok(directory.body.lastErrorAt);
      assert.equal((await account('bert'))?.status, 'active', 'nothing deactivated by a failed list');
    } finally {
      idp.failDirectoryLists(null);
    }
  });

  it('when a run was abandoned by a dead worker (its job has no attempts left), then the next run ends it as failed and leaves a run with a live job alone', async () => {
    const run = async (status: string) => {
      const [rows] = await t.db.sequelize.query(
        `INSERT INTO directory_sync_runs (directory_id, status, started_at, created_at)
         VALUES ($1, $2, now() - interval '2 hours', now() - interval '2 hours') RETURNING id`,
        { bind: [directoryId, status] },
      );
      return (rows as Array<{ id: string }>)[0]!.id;
    };
    const statusOf = async (id: string) => {
      const [rows] = await t.db.sequelize.query('SELECT status, error FROM directory_sync_runs WHERE id = $1', {
        bind: [id],
      });
      return (rows as Array<{ status: string; error: string | null }>)[0]!;
    };
    const abandoned = await run('running'); // its job failed for good: no live job names it
    const waiting = await run('queued'); // its job is queued for later, as a retry's backoff leaves it
    const jobId = await t.container.queue.enqueue(
      'directory.sync',
      { runId: waiting },
      { startAfter: new Date(Date.now() + 3_600_000) },
    );
    try {
      assert.equal((await sync()).status, 'done');
      const ended = await statusOf(abandoned);
      assert.equal(ended.status, 'failed');
      assert.match(ended.error ?? '', /stopped and its job has no attempts left/);
      assert.equal((await statusOf(waiting)).status, 'queued', 'a run a live job will take up is not ended');
    } finally {
      await t.db.sequelize.query('DELETE FROM pgboss.job WHERE id = $1', { bind: [jobId] });
    }
  });
});
