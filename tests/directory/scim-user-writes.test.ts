// What a SCIM create and PATCH of a user write, whichever way provisioning takes (one statement for the
// usual case, the locked transaction otherwise): the account, its member record, the audit entries and
// the member.created event; an existing member record linked rather than doubled; a rename followed
// by the account, audited, its version moved, a stale ETag refused; a member record removed since
// brought back by the next PATCH; two PATCHes of one user racing both applied; the member.created
// event reaching a webhook subscribed to it and the CRM queue, and nothing written where neither is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEntry } from '../../src/modules/audit/audit-entry.model.ts';
import { Member } from '../../src/modules/members/member.model.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { DomainEventRecord } from '../../src/shared/domain-events/domain-event.model.ts';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import {
  addDirectory,
  expectScim,
  expectScimError,
  patchOp,
  type ScimClient,
  type ScimDirectory,
  scimClient,
} from './fixtures/scim-client.ts';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const person = (userName: string, givenName = 'Ada') => ({
  schemas: [USER_SCHEMA],
  userName,
  externalId: `ext-${userName}`,
  name: { givenName, familyName: 'Lovelace' },
  emails: [{ type: 'work', value: userName, primary: true }],
  active: true,
});
const versionOf = (etag: string) => Number(etag.replace(/^W\/"|"$/g, ''));
const rename = (givenName: string) => patchOp({ op: 'Replace', path: 'name.givenName', value: givenName });

describe('SCIM user writes', () => {
  let t: TestApp;
  let directory: ScimDirectory;
  let scim: ScimClient;

  before(async () => {
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    directory = await addDirectory(t);
    scim = scimClient(t, directory.token);
  });
  after(() => t.close());

  it('when a user is provisioned, then the account, member record, audit entries and event are written', async () => {
    const created = expectScim(await scim.post('/Users', person('writes.one@entra.test')), 201);
    const account = (await User.findOne({ where: { email: 'writes.one@entra.test' } }))!;
    assert.equal(account.directoryId, directory.id);
    const member = (await Member.findOne({ where: { userId: account.id } }))!;
    assert.equal(member.status, 'active');
    assert.equal(member.email, 'writes.one@entra.test');
    assert.equal(member.organizationId, directory.organizationId);

    const provisioned = await AuditEntry.findAll({
      where: { action: 'directory.user_provisioned', targetId: account.id },
    });
    assert.equal(provisioned.length, 1);
    assert.equal(provisioned[0]!.actorType, 'directory');
    assert.equal(provisioned[0]!.actorId, directory.id);
    assert.deepEqual(provisioned[0]!.after, {
      directoryId: directory.id,
      userName: 'writes.one@entra.test',
      created: true,
    });
    const memberCreated = await AuditEntry.findAll({ where: { action: 'member.created', targetId: member.id } });
    assert.equal(memberCreated.length, 1);
    assert.equal(memberCreated[0]!.actorType, 'system');
    assert.equal((memberCreated[0]!.after as { userId: string }).userId, account.id);

    const events = await DomainEventRecord.findAll({ where: { type: 'member.created' } });
    const event = events.find((e) => e.data.id === member.id);
    assert.ok(event, 'member.created announced');
    assert.equal(event.organizationId, directory.organizationId);
    assert.deepEqual(event.data, memberCreated[0]!.after, 'the event carries the member as audited');
    assert.equal(created.active, true);
  });

  it('when the address has a member record already, then provisioning links it instead of adding another', async () => {
    const existing = await Member.create({
      organizationId: directory.organizationId,
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'Known.Member@entra.test',
      tier: 'premium',
      status: 'active',
      customFields: {},
      phone: null,
      membershipType: null,
      joinedAt: null,
      renewalDate: null,
      userId: null,
    });
    expectScim(await scim.post('/Users', person('known.member@entra.test', 'Grace')), 201);
    const account = (await User.findOne({ where: { email: 'known.member@entra.test' } }))!;
    const records = await Member.findAll({ where: { organizationId: directory.organizationId } });
    const same = records.filter((m) => m.email.toLowerCase() === 'known.member@entra.test');
    assert.equal(same.length, 1, 'no second record');
    assert.equal(same[0]!.id, existing.id);
    assert.equal(same[0]!.userId, account.id);
    assert.equal(same[0]!.tier, 'premium', 'the record kept as it was, linked');
    assert.equal(await AuditEntry.count({ where: { action: 'member.created', targetId: existing.id } }), 0);
    assert.equal(await AuditEntry.count({ where: { action: 'member.updated', targetId: existing.id } }), 1);
  });

  it('when a rename is PATCHed, then the account follows, it is audited, and a stale ETag is refused', async () => {
    const created = expectScim(await scim.post('/Users', person('writes.two@entra.test')), 201);
    const account = (await User.findOne({ where: { email: 'writes.two@entra.test' } }))!;
    const forgotten: Array<string | undefined> = [];
    const auth = t.container.services.auth;
    const forgetUser = auth.forgetUser.bind(auth);
    auth.forgetUser = (id?: string) => {
      forgotten.push(id);
      forgetUser(id);
    };
    try {
      const patchedRes = await scim
        .patch(`/Users/${created.id}`, rename('Augusta'))
        .set('If-Match', created.meta.version);
      const patched = expectScim(patchedRes, 200);
      assert.equal(patched.name.givenName, 'Augusta');
      assert.notEqual(patched.meta.version, created.meta.version);
      assert.equal(patchedRes.headers.etag, patched.meta.version);
      assert.deepEqual(patched.groups, []);
      assert.ok(forgotten.includes(account.id), 'the credential caches drop the changed account');
    } finally {
      auth.forgetUser = forgetUser;
    }
    assert.equal((await account.reload()).firstName, 'Augusta');
    const updated = await AuditEntry.findAll({ where: { action: 'directory.user_updated', targetId: account.id } });
    assert.equal(updated.length, 1);
    assert.deepEqual(updated[0]!.after, { directoryId: directory.id, userName: 'writes.two@entra.test' });

    expectScimError(
      await scim.patch(`/Users/${created.id}`, rename('Stale')).set('If-Match', created.meta.version),
      412,
    );
    assert.equal((await account.reload()).firstName, 'Augusta', 'nothing written by the refused PATCH');
    assert.equal(await AuditEntry.count({ where: { action: 'directory.user_updated', targetId: account.id } }), 1);
  });

  it('when the member record was removed, then the next PATCH of the member brings it back', async () => {
    const created = expectScim(await scim.post('/Users', person('writes.three@entra.test')), 201);
    const account = (await User.findOne({ where: { email: 'writes.three@entra.test' } }))!;
    await Member.destroy({ where: { userId: account.id } });
    expectScim(await scim.patch(`/Users/${created.id}`, rename('Back')), 200);
    const member = await Member.findOne({ where: { userId: account.id } });
    assert.equal(member?.status, 'active');
    assert.equal((await account.reload()).firstName, 'Back');
  });

  it('when two PATCHes of one user race, then both are applied', async () => {
    const created = expectScim(await scim.post('/Users', person('writes.four@entra.test')), 201);
    const [first, second] = await Promise.all([
      scim.patch(`/Users/${created.id}`, rename('Racer')),
      scim.patch(`/Users/${created.id}`, patchOp({ op: 'Replace', path: 'title', value: 'Treasurer' })),
    ]);
    expectScim(first, 200);
    expectScim(second, 200);
    const read = expectScim(await scim.get(`/Users/${created.id}`), 200);
    assert.equal(read.name.givenName, 'Racer');
    assert.equal(read.title, 'Treasurer');
    assert.equal(versionOf(read.meta.version), versionOf(created.meta.version) + 2, 'one version each');
    const account = (await User.findOne({ where: { email: 'writes.four@entra.test' } }))!;
    assert.equal(account.firstName, 'Racer');
    assert.equal(account.jobTitle, 'Treasurer');
  });

  it('when a member is provisioned, then its event reaches a webhook subscribed to it and the CRM queue, and nothing where neither is', async () => {
    const organizationId = directory.organizationId;
    const count = async (sql: string) => {
      const [rows] = await t.db.sequelize.query(sql, { bind: [organizationId] });
      return (rows as Array<{ n: number }>)[0]!.n;
    };
    const webhookEvents = () => count('SELECT count(*)::int AS n FROM webhook_events WHERE organization_id = $1');
    const deliveries = () => count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1');
    const queuedForCrm = () => count('SELECT count(*)::int AS n FROM crm_sync_queue WHERE organization_id = $1');
    const provision = async (userName: string) => {
      expectScim(await scim.post('/Users', person(userName)), 201);
      const member = (await Member.findOne({ where: { email: userName } }))!;
      const event = (await DomainEventRecord.findAll({ where: { type: 'member.created' } })).find(
        (e) => e.data.id === member.id,
      );
      assert.ok(event, `member.created announced for ${userName}`);
      return { member, event };
    };

    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    const token = await tokenFor(t, admin);
    const subscribe = (events: string[]) =>
      t.http.post('/api/webhooks').set(bearer(token)).send({ url: 'http://127.0.0.1:9/hooks', events }).expect(201);

    await subscribe(['member.updated']);
    await provision('subscribers.none@entra.test');
    assert.equal(await webhookEvents(), 0, 'no webhook event: no subscription to member.created');
    assert.equal(await queuedForCrm(), 0, 'nothing queued: no CRM connection');

    await subscribe(['member.created']);
    await subscribe(['member.created', 'member.updated']);
    const { event } = await provision('subscribers.webhook@entra.test');
    const [webhookEvent] = await t.container.models.WebhookEvent.findAll({ where: { organizationId } });
    assert.equal(webhookEvent?.id, `msg_${event.id.replaceAll('-', '')}`);
    assert.equal(await deliveries(), 2, 'one delivery per subscription to member.created');
    assert.equal(await queuedForCrm(), 0);

    await t.db.sequelize.query(
      "INSERT INTO crm_connections (organization_id, status) VALUES ($1, 'needs_reauthorization')",
      { bind: [organizationId] },
    );
    const { member } = await provision('subscribers.crm@entra.test');
    const [queued] = await t.db.sequelize.query(
      'SELECT member_id AS "memberId", email, action FROM crm_sync_queue WHERE organization_id = $1',
      { bind: [organizationId] },
    );
    assert.deepEqual(queued, [{ memberId: member.id, email: 'subscribers.crm@entra.test', action: 'upsert' }]);
    assert.equal(await webhookEvents(), 2, 'the webhook still gets every member.created');
    assert.equal(await deliveries(), 4);
  });

  it('when a second directory user names an address this directory already manages, then 409 uniqueness and the first keeps its account', async () => {
    const first = expectScim(await scim.post('/Users', person('writes.twice@entra.test', 'Alice')), 201);
    const second = {
      ...person('writes.twice@entra.test', 'Mallory'),
      userName: 'alice-other',
      externalId: 'ext-other',
    };
    expectScimError(await scim.post('/Users', second), 409, 'uniqueness');
    const account = (await User.findOne({ where: { email: 'writes.twice@entra.test' } }))!;
    assert.equal(account.firstName, 'Alice', 'not renamed by the refused one');
    const managing = await t.db.sequelize.query('SELECT count(*)::int AS n FROM directory_users WHERE user_id = $1', {
      bind: [account.id],
      plain: true,
    });
    assert.equal((managing as { n: number }).n, 1);
    // a PUT of the first with its own address is still its own
    expectScim(await scim.put(`/Users/${first.id}`, person('writes.twice@entra.test', 'Alicia')), 200);
    await account.reload();
    assert.equal(account.firstName, 'Alicia');
  });

  it('when an address is not an e-mail address, then 400 invalidValue and no account is made', async () => {
    const bad = { ...person('writes.bad@entra.test'), userName: 'bademail', emails: [{ value: 'not an email' }] };
    const refused = expectScimError(await scim.post('/Users', bad), 400, 'invalidValue');
    assert.match(refused.detail, /e-mail address/);
    assert.equal(await User.count({ where: { email: 'not an email' } }), 0);
  });

  it('when a hard-deleted user is provisioned again, then a new account gets the cancelled member record back', async () => {
    const hard = await addDirectory(t, { hardDelete: true });
    const client = scimClient(t, hard.token);
    const dave = expectScim(await client.post('/Users', person('writes.dave@entra.test', 'Dave')), 201);
    const before = (await User.findOne({ where: { email: 'writes.dave@entra.test' } }))!;
    const member = (await Member.findOne({ where: { userId: before.id } }))!;
    assert.equal((await client.delete(`/Users/${dave.id}`)).status, 204);
    await member.reload();
    assert.equal(member.status, 'cancelled');

    const again = expectScim(await client.post('/Users', person('writes.dave@entra.test', 'Dave')), 201);
    assert.notEqual(again.id, dave.id);
    const account = (await User.findOne({ where: { email: 'writes.dave@entra.test' } }))!;
    assert.notEqual(account.id, before.id, 'a new account');
    await member.reload();
    assert.equal(member.userId, account.id, 'the same member record, linked to it');
    assert.equal(member.status, 'active');
    assert.equal(await Member.count({ where: { organizationId: hard.organizationId } }), 1);
  });
});
