// What the Admin Portal's JSON API sends (the browser gets nothing else): only the resources it opts
// into, each with only its allow-listed properties. Secrets planted in the hidden columns must not appear.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import { Directory } from '../../src/modules/directory/directory.model.ts';
import { OutboxMessage } from '../../src/modules/mail/outbox-message.model.ts';
import { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import { WebhookSubscription } from '../../src/modules/webhooks/webhook-subscription.model.ts';
import { PORTAL_PROPERTIES } from '../../admin/resources/portal-properties.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, PASSWORD, tokenFor } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { stubDns } from '../factories/dns.ts';
import { buildCategory, buildResource } from '../factories/resource-usage.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

type Listed = { records: Array<{ id: string; params: Record<string, unknown> }>; meta: { total: number } };

describe('Admin Portal exposure', { timeout: 180_000 }, () => {
  let t: TestApp;
  let portal: ReturnType<typeof supertest.agent>;
  let generatedPassword: string;
  let memberEmail: string;

  before(async () => {
    t = await startTestApp({
      dnsLookup: stubDns({ 'hooks.example.test': ['93.184.216.34'] }).lookup,
    });
    const { admin, token, mfaToken } = await buildAdmin(t);
    const org = await buildOrganization();
    await buildApiKey(org.id);
    // a library resource (with its version) in a category: the library pages have rows to check
    const resource = await buildResource(t.db.sequelize, org.id);
    await buildCategory(t.db.sequelize, org.id, 'Exposure category', { resourceIds: [resource.id] });
    // a user created with a generated password: its welcome e-mail carries the password
    const created = await t.http
      .post('/api/admin/users')
      .set(bearer(token))
      .send({
        firstName: 'Gina',
        lastName: 'Generated',
        email: 'gina@exposure.test',
        role: 'ROLE_MEMBER',
        organizationId: org.id,
        generatePassword: true,
      })
      .expect(201);
    const mail = await OutboxMessage.findOne({ where: { userId: created.body.id } });
    generatedPassword = /temporary password is: (\S+)/.exec(mail!.textBody!)![1]!;
    // a webhook subscription (sealed secret) and a member change (an event payload with member data)
    const clientAdmin = await buildUser({ organizationId: org.id, role: 'ROLE_CLIENT_ADMIN' });
    const clientToken = await tokenFor(t, clientAdmin);
    await t.http
      .post('/api/webhooks')
      .set(bearer(clientToken))
      .send({ url: 'https://hooks.example.test/in', events: ['member.created'] })
      .expect(201);
    // an OIDC connection with a sealed client secret: the portal must never select it
    await SsoConnection.create({
      organizationId: org.id,
      name: 'Exposure SSO',
      protocol: 'oidc',
      settings: { clientId: 'exposure', discoveryUrl: 'https://idp.exposure.test' },
      secretSealed: 'v1.sealed-client-secret',
    });
    // a directory with its SCIM token's hash: the portal must never select it
    await Directory.create({
      organizationId: org.id,
      name: 'Exposure SCIM',
      provider: 'scim',
      tokenHash: 'f'.repeat(64),
    });
    memberEmail = 'private.member@exposure.test';
    await t.http
      .post('/api/members')
      .set(bearer(clientToken))
      .send({ firstName: 'Private', lastName: 'Person', email: memberEmail })
      .expect(201);
    // an impersonation session with one request made in it
    const started = await t.http
      .post(`/api/admin/users/${created.body.id}/impersonate`)
      .set(bearer(mfaToken))
      .expect(201);
    await t.http.get('/api/auth/me').set(bearer(started.body.accessToken)).expect(200);
    await t.http.delete('/api/admin/impersonate').set(bearer(mfaToken)).expect(200);

    portal = supertest.agent(t.app);
    await portal
      .post('/admin/login')
      .type('form')
      .send({ email: admin.email, password: PASSWORD, otp: totpCode(mfaSecretOf(admin)!, t.clock.now()) })
      .expect(302)
      .expect('Location', '/admin');
  });
  after(async () => {
    await t?.close();
  });

  const list = async (resource: string, query = '') => {
    const res = await portal.get(`/admin/api/resources/${resource}/actions/list${query}`);
    return { status: res.status, body: res.body as Listed, text: res.text };
  };

  it('when each exposed resource is listed, then its records carry exactly the allow-listed properties', async () => {
    for (const [resource, allowed] of Object.entries(PORTAL_PROPERTIES)) {
      const { status, body, text } = await list(resource);
      assert.equal(status, 200, `${resource}: ${text.slice(0, 300)}`);
      assert.ok(body.meta.total > 0, `${resource} has records to check`);
      for (const record of body.records) {
        const extra = Object.keys(record.params).filter(
          (key) => !(allowed as readonly string[]).includes(key.split('.')[0]!),
        );
        assert.deepEqual(extra, [], `${resource} sends only allow-listed properties`);
      }
    }
  });

  it('when a portal URL carries an id, a filter or a page its columns cannot hold, then the answer is no record, never a 500', async () => {
    for (const [resource, allowed] of Object.entries(PORTAL_PROPERTIES)) {
      for (const id of ['x', '999999999999999999999']) {
        const shown = await portal.get(`/admin/api/resources/${resource}/records/${id}/show`);
        assert.equal(shown.status, 200, `${resource} ${id}: ${shown.text.slice(0, 200)}`);
        assert.equal(shown.body.notice?.type, 'error', `${resource} ${id}: not found`);
      }
      for (const paging of ['?page=-1', '?perPage=-5', '?page=abc&perPage=abc', '?perPage=0']) {
        const { status, body, text } = await list(resource, paging);
        assert.equal(status, 200, `${resource}${paging}: ${text.slice(0, 200)}`);
        assert.ok(body.records.length > 0, `${resource}${paging}: the first page, as without it`);
      }
      const everything = (await list(resource)).body.meta.total;
      const filtered = ['organizationId', 'id', 'createdAt'].filter((name) =>
        (allowed as readonly string[]).includes(name),
      );
      for (const name of filtered) {
        const query = name === 'createdAt' ? `?filters.${name}~~from=notadate` : `?filters.${name}=x`;
        const { status, body, text } = await list(resource, query);
        assert.equal(status, 200, `${resource}${query}: ${text.slice(0, 200)}`);
        // a list whose filters lack the column ignores it (the organizations list has no id filter)
        assert.ok([0, everything].includes(body.meta.total), `${resource}${query}: matches nothing`);
      }
      if (filtered.includes('organizationId') && resource !== 'organizations')
        assert.equal((await list(resource, '?filters.organizationId=x')).body.meta.total, 0, resource);
    }
    // the portal's own routes: the users export and its count, the CRM page
    const count = await portal.get('/admin/export/users.count?filters.organizationId=x').expect(200);
    assert.deepEqual(count.body, { rows: 0 });
    const csv = await portal.get('/admin/export/users.csv?filters.organizationId=x').expect(200);
    assert.equal(csv.text.trim().split('\n').length, 1, 'the header row alone');
    for (const path of ['/admin/crm/x', '/admin/crm/x/errors?page=-1']) {
      const crm = await portal.get(path).expect(404);
      assert.equal(crm.body.code, 'not_found', path);
    }
    await portal
      .post('/admin/crm/x/retry')
      .send({ errorIds: ['a'] })
      .expect(404);
  });

  it('when a portal request carries a malformed JSON body, then it is 400 malformed_body and the service goes on', async () => {
    for (const path of [
      '/admin/login',
      '/admin/api/pages/directory-sync',
      '/admin/api/resources/organizations/actions/new',
    ]) {
      const res = await portal.post(path).set('Content-Type', 'application/json').send('{"name": ').expect(400);
      assert.deepEqual(res.body, { code: 'malformed_body', message: 'The request body is not valid JSON' }, path);
    }
    assert.equal((await list('organizations')).status, 200);
  });

  it('when a portal path is not valid percent-encoding, then it is the API’s 400 problem naming the path', async () => {
    for (const path of ['/admin/resources/%ZZ', '/admin/api/resources/users/records/%ZZ/show']) {
      const res = await portal.get(path).expect(400);
      assert.equal(res.type, 'application/problem+json', path);
      assert.deepEqual(res.body.errors, [{ field: 'path', message: 'must be valid percent-encoded UTF-8' }], path);
    }
  });

  it('when a portal API path names an action or a resource that does not exist, then 404, never a 500', async () => {
    const { body } = await list('users');
    const userId = body.records[0]!.params.id as string;
    for (const path of [
      '/admin/api/resources/users/actions/bogus',
      `/admin/api/resources/users/records/${userId}/bogus`,
      '/admin/api/resources/users/bulk/bogus',
      '/admin/api/resources/nonexistent/actions/list',
      `/admin/api/resources/users/records/${userId}/list`, // a resource action at a record's route
      '/admin/api/resources/users/actions/constructor',
    ]) {
      const res = await portal.get(path).expect(404);
      assert.equal(res.body.code, 'not_found', path);
    }
    await portal.get(`/admin/api/resources/users/records/${userId}/show`).expect(200);
  });

  it("when portal pages and the portal's API answer, then the browser is told to keep none of it", async () => {
    for (const path of ['/admin', '/admin/resources/users', '/admin/api/resources/users/actions/list']) {
      const res = await portal.get(path);
      assert.equal(res.headers['cache-control'], 'no-store', path);
    }
    const bundle = await portal.get('/admin/frontend/assets/app.bundle.js').expect(200);
    assert.notEqual(bundle.headers['cache-control'], 'no-store');
  });

  it('when the mail outbox is read, then the redacted text shows and the generated password never does', async () => {
    const { body, text } = await list('mail_outbox');
    const welcome = body.records.find(
      (r) => r.params.toAddress === 'gina@exposure.test' && r.params.template === 'welcome',
    )!;
    assert.match(String(welcome.params.redactedText), /Your temporary password is: \[redacted\]/);
    const shown = await portal.get(`/admin/api/resources/mail_outbox/records/${welcome.id}/show`).expect(200);
    assert.equal(shown.body.record.params.textBody, undefined);
    assert.ok(
      !text.includes(generatedPassword) && !shown.text.includes(generatedPassword),
      'the password is not in any response',
    );
  });

  it('when a hidden column is used to filter or sort, then it is ignored rather than answered', async () => {
    const all = await list('mail_outbox');
    const filtered = await list('mail_outbox', `?filters.textBody=${encodeURIComponent(generatedPassword)}`);
    assert.equal(filtered.status, 200);
    assert.equal(
      filtered.body.meta.total,
      all.body.meta.total,
      'a filter on the body would have narrowed the list to one',
    );
    assert.equal((await list('mail_outbox', '?sortBy=textBody&direction=asc')).status, 200);
  });

  it('when a webhook subscription is read, then its sealed secret is not sent', async () => {
    const { body, text } = await list('webhook_subscriptions');
    assert.equal(body.records.length, 1);
    const sealed = (await WebhookSubscription.findOne())!.secretSealed;
    assert.ok(!text.includes(sealed));
    assert.equal(body.records[0]!.params.secretSealed, undefined);
  });

  it('when an SSO connection is read, then its sealed client secret is not sent', async () => {
    const { body, text } = await list('sso_connections');
    assert.equal(body.records.length, 1);
    assert.ok(!text.includes('sealed-client-secret'));
    assert.equal(body.records[0]!.params.secretSealed, undefined);
  });

  it('when a directory is read, then its SCIM token hash is not sent', async () => {
    const { body, text } = await list('directories');
    assert.equal(body.records.length, 1);
    const shown = await portal.get(`/admin/api/resources/directories/records/${body.records[0]!.id}/show`).expect(200);
    for (const sent of [text, shown.text]) assert.ok(!sent.includes('f'.repeat(64)) && !sent.includes('tokenHash'));
  });

  it('when a model the portal does not opt into is requested, then it is not there', async () => {
    for (const resource of [
      'members',
      'events',
      'courses',
      'webhook_events',
      'webhook_attempts',
      'password_tokens',
      'users_raw',
    ]) {
      const { status, text } = await list(resource);
      assert.notEqual(status, 200, resource);
      assert.ok(!text.includes(memberEmail), `${resource} leaks no member data`);
    }
    // the navigation the page ships with names exactly the opted-in resources
    const page = (await portal.get('/admin').expect(200)).text;
    const ids = [...page.matchAll(/\\?"id\\?":\\?"([a-z_]+)\\?",\\?"name\\?"/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(ids)].sort(), ['users', ...Object.keys(PORTAL_PROPERTIES)].sort());
  });
});
