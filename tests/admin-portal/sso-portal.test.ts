// The Admin Portal's SSO pages in a real browser: Platform Settings > Integrations (the identity
// service's settings, secrets shown only by their last four characters) and the SSO connections of
// organizations with Test connection / Enable. The identity service is the loopback stand-in, driven
// through the real @workos-inc/node client.
// test-runner: timeout 300 s (pages rendered in Chromium: minutes on a busy 2-core machine)
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/modules/auth/mfa.ts';
import type { Organization } from '../../src/modules/organizations/organization.model.ts';
import type { Actor } from '../../src/shared/access/actor.ts';
import type { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import type { User } from '../../src/modules/users/user.model.ts';
import { buildOrganization, buildUser, PASSWORD } from '../factories/index.ts';
import { buildAdmin, mfaSecretOf } from '../factories/mfa.ts';
import { prepareAdminBundle } from '../setup/admin-bundle.ts';
import { acquireBrowser, offlineOnly, releaseBrowser } from '../setup/browser.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { startIdentityServiceStandIn, type IdentityServiceStandIn } from '../support/identity-service-stand-in.ts';
import { createSamlIdp } from '../sso/fixtures/saml-idp.ts';

// screenshots to look at the pages (PORTAL_SCREENSHOTS names another folder)
const SHOTS = process.env.PORTAL_SCREENSHOTS ?? tmpdir();
const WEBHOOK_SECRET = 'whsec_portal_0123456789abcdef';

describe('Admin Portal SSO pages in a browser', { timeout: 300_000 }, () => {
  let t: TestApp;
  let idp: IdentityServiceStandIn;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  let admin: User;
  let org: Organization;
  let connection: SsoConnection;
  let asClientAdmin: Actor;

  // the portal scrolls inside its layout, so a full-page shot is only the viewport: a taller one when asked
  const shot = async (name: string, height = 900) => {
    await page.setViewportSize({ width: 1600, height });
    await page.screenshot({ path: path.join(SHOTS, `sso-portal-${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1600, height: 900 });
  };
  const auditCount = async (action: string) =>
    (
      (await t.db.sequelize.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = :action`, {
        plain: true,
        replacements: { action },
      })) as { n: number }
    ).n;

  before(async () => {
    idp = await startIdentityServiceStandIn();
    t = await startTestApp({ env: { IDENTITY_SERVICE_API_URL: idp.url } });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ({ admin } = await buildAdmin(t, { firstName: 'Sara', lastName: 'Settings' }));
    org = await buildOrganization({ name: 'Okta Guild', plan: 'enterprise' });
    // created as the organization's client admin would through the API: the service, in its organization
    const clientAdmin = await buildUser({ organizationId: org.id, role: 'ROLE_CLIENT_ADMIN' });
    asClientAdmin = {
      type: 'user',
      id: clientAdmin.id,
      organizationId: org.id,
      role: 'ROLE_CLIENT_ADMIN',
      mfaVerified: false,
      requestId: 'sso-portal-test',
    };
    connection = await t.container.services.ssoConnections.create(asClientAdmin, {
      name: 'Okta via the identity service',
      protocol: 'identity_service',
      settings: { connection: 'conn_123' },
      domains: ['okta-guild.test'],
    });
    assert.equal((await fetch(`${base}/admin/login`)).status, 200); // loads the portal
    await prepareAdminBundle(base);
    browser = await acquireBrowser();
    const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
    await context.route(offlineOnly, (route) => route.abort());
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${base}/admin/login`);
    await page.fill('input[name=email]', admin.email);
    await page.fill('input[name=password]', PASSWORD);
    await page.fill('input[name=otp]', totpCode(mfaSecretOf(admin)!, t.clock.now()));
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/admin`);
  });
  after(async () => {
    await releaseBrowser();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
    await idp?.close();
  });

  it('when the admin opens Platform Settings > Integrations, then the identity service shows as not configured', async () => {
    await page.goto(`${base}/admin`);
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.waitForURL(`${base}/admin/pages/integrations`);
    await page.waitForSelector('[data-testid=identity-service-current]');
    assert.ok(await page.getByText('Platform Settings').first().isVisible(), 'the sidebar section');
    assert.equal(await page.textContent('[data-testid=configured]'), 'No');
    assert.equal(await page.textContent('[data-testid=api-key]'), 'not set');
    await shot('integrations-empty', 1300);
  });

  it('when the settings are saved, then the page shows only the last four characters of the secrets, never the key', async () => {
    await page.fill('#apiKey', idp.apiKey);
    await page.fill('#clientId', idp.clientId);
    await page.fill('#redirectUri', 'https://guildhall.example.test/auth/callback/idp');
    await page.fill('#webhookSecret', WEBHOOK_SECRET);
    await page.click('[data-testid=identity-service-save]');
    await page.locator('text=Identity service settings saved').first().waitFor();
    assert.equal(await page.textContent('[data-testid=configured]'), 'Yes');
    assert.equal(await page.textContent('[data-testid=api-key]'), `•••• ${idp.apiKey.slice(-4)}`);
    assert.equal(await page.textContent('[data-testid=webhook-secret]'), `•••• ${WEBHOOK_SECRET.slice(-4)}`);
    assert.equal(await page.textContent('[data-testid=client-id]'), idp.clientId);
    assert.equal(await page.inputValue('#apiKey'), '', 'the secret inputs are empty again');
    assert.equal(await page.inputValue('#webhookSecret'), '');
    await page.getByText('Leave empty to keep the saved key.').waitFor();
    await shot('integrations-saved', 1300);
    // the page after saving, and a fresh load of it: the secrets are nowhere in the HTML
    const secretsIn = (html: string) => html.includes(idp.apiKey) || html.includes(WEBHOOK_SECRET);
    assert.ok(!secretsIn(await page.content()), 'no secret in the page after saving');
    await page.reload();
    await page.waitForSelector('[data-testid=identity-service-current]');
    assert.ok(!secretsIn(await page.content()), 'no secret in the page when loaded again');
    assert.equal((await t.container.services.identityServiceSettings.current())?.apiKey, idp.apiKey);
    assert.equal(await auditCount('identity_service.settings_changed'), 1);
  });

  it('when a key not beginning with sk_ is saved, then the field shows the service’s message and nothing changes', async () => {
    await page.waitForSelector('[data-testid=identity-service-current]');
    await page.fill('#apiKey', 'pk_live_wrong_key_123');
    await page.click('[data-testid=identity-service-save]');
    const message = page.locator('[data-testid=error-apiKey]');
    await message.waitFor();
    assert.match((await message.textContent()) ?? '', /must begin with sk_/);
    // the notice points to the message under the field instead of naming it by its code name
    await page.locator('text=Some fields need attention: see the message under each.').first().waitFor();
    assert.doesNotMatch((await page.textContent('body')) ?? '', /failed validation: apiKey/);
    assert.equal(await page.textContent('[data-testid=api-key]'), `•••• ${idp.apiKey.slice(-4)}`);
    await shot('integrations-refused', 1300);
    assert.equal((await t.container.services.identityServiceSettings.current())?.apiKey, idp.apiKey);
    assert.equal(await auditCount('identity_service.settings_changed'), 1);
  });

  it('when the SSO connections list is opened, then the connection shows with its organization, protocol, status and domains', async () => {
    await page.goto(`${base}/admin/resources/sso_connections`);
    await page.waitForSelector('tbody tr');
    const headers = (
      await page.$$eval('thead th, thead td', (cells) => cells.map((c) => c.textContent?.trim() ?? ''))
    ).filter(Boolean);
    assert.deepEqual(headers, [
      'Organization',
      'Name',
      'Protocol',
      'Status',
      'E-mail domains',
      'Last test',
      'Last test result',
    ]);
    const row = page.locator('tbody tr', { hasText: 'Okta via the identity service' });
    await row.getByText('Okta Guild').waitFor(); // the organization by name, not its id
    assert.match(
      ((await row.textContent()) ?? '').replace(/\s+/g, ' '),
      /Okta Guild.*Okta via the identity service.*Identity service.*draft.*okta-guild\.test.*not tested/,
    );
    assert.equal(await row.locator('[data-testid=sso-status]').textContent(), 'draft', 'the status as a badge');
    await shot('connections-list');
  });

  it('when "Test connection" is confirmed, then the service tests it at the identity service and the result shows', async () => {
    await page.goto(`${base}/admin/resources/sso_connections/records/${connection.id}/show`);
    // no address of its own: the identity service returns people to the redirect URI of Integrations
    await page.getByText('conn_123').waitFor();
    for (const label of ['SP entity ID', 'ACS URL', 'SP metadata URL', 'Redirect URI'])
      assert.equal(await page.getByText(label, { exact: true }).count(), 0, label);
    assert.equal(await page.getByText('secretSealed').count(), 0);
    // the protocol and the default role by their names, not their stored codes
    await page.getByText('Identity service', { exact: true }).waitFor();
    await page.getByText('Member', { exact: true }).waitFor();
    assert.equal(await page.getByText('ROLE_MEMBER').count(), 0);
    await shot('connection-show', 1500);
    await page.click('[data-testid=action-testConnection]');
    await shot('connection-test-confirm');
    await page.click('[data-testid=confirm-action]');
    await page
      .locator('text=Test passed: Okta (stand-in) (OktaSAML) is active at the identity service')
      .first()
      .waitFor();
    await shot('connection-tested', 1500);
    await connection.reload();
    assert.equal(connection.lastTestOk, true);
    assert.ok(
      idp.requests.some((r) => r.path === '/connections/conn_123' && r.authorization === `Bearer ${idp.apiKey}`),
      'the stand-in was asked with the saved key',
    );
    assert.equal(await auditCount('sso.connection_tested'), 1);
  });

  it('when a SAML connection is opened, then it shows the entity ID, ACS URL and metadata URL to give the IdP, no redirect URI, and its settings each under its name', async () => {
    const samlIdp = createSamlIdp();
    const saml = await t.container.services.ssoConnections.create(asClientAdmin, {
      name: 'Entra ID (SAML)',
      protocol: 'saml',
      settings: { idpEntityId: samlIdp.entityId, idpSsoUrl: samlIdp.ssoUrl, idpCertificate: samlIdp.certificatePem },
      domains: ['okta-guild.test'],
    });
    await page.goto(`${base}/admin/resources/sso_connections/records/${saml.id}/show`);
    await page.getByText(`${t.config.baseUrl}/auth/saml/${saml.id}/acs`).waitFor();
    for (const label of ['SP entity ID', 'ACS URL', 'SP metadata URL'])
      assert.equal(await page.getByText(label, { exact: true }).count(), 1, label);
    assert.equal(await page.getByText(`${t.config.baseUrl}/auth/saml/${saml.id}/metadata`).count(), 2);
    assert.equal(await page.getByText('Redirect URI', { exact: true }).count(), 0);
    // each setting under its name; the certificate as PEM, its lines kept, inside its box
    const settings = page.locator('[data-testid="sso-settings"]');
    for (const label of ['IdP entity ID', 'IdP SSO URL', 'IdP certificate'])
      assert.equal(await settings.getByText(label, { exact: true }).count(), 1, label);
    assert.equal(await settings.getByText(samlIdp.ssoUrl, { exact: true }).count(), 1);
    const certificate = await page.locator('[data-testid="sso-certificate"]').evaluate((pre) => ({
      text: pre.textContent ?? '',
      scroll: pre.scrollWidth,
      client: pre.clientWidth,
    }));
    assert.equal(certificate.text, samlIdp.certificatePem.trim(), 'the PEM as saved, line breaks and all');
    assert.ok(!certificate.text.includes('\\n'), 'no escaped line breaks');
    assert.ok(certificate.scroll <= certificate.client, `the certificate overflows: ${JSON.stringify(certificate)}`);
    assert.equal(
      await page.locator('[data-testid="group-roles"]').textContent(),
      'No groups mapped: every user gets the default role.',
    );
    // not tested yet: said, instead of two labels over nothing
    for (const [label, shown] of [
      ['Last tested', 'never'],
      ['Last test result', '—'],
    ]) {
      const group = page.locator('section', { has: page.getByText(label, { exact: true }) }).last();
      assert.equal(((await group.textContent()) ?? '').replace(label, '').trim(), shown, label);
    }
    await shot('connection-saml-show', 1300);
  });

  it('when "Enable" is confirmed after a passed test, then the connection is active and Disable is offered', async () => {
    await page.goto(`${base}/admin/resources/sso_connections/records/${connection.id}/show`);
    await page.click('[data-testid=action-enable]');
    await page.click('[data-testid=confirm-action]');
    await page.locator('text=Okta via the identity service is active').first().waitFor();
    await connection.reload();
    assert.equal(connection.status, 'active');
    assert.equal(await auditCount('sso.connection_enabled'), 1);
    await page.goto(`${base}/admin/resources/sso_connections/records/${connection.id}/show`);
    await page.locator('[data-testid=action-disable]').waitFor();
    assert.equal(await page.locator('[data-testid=action-enable]').count(), 0);
    assert.equal(await page.locator('[data-testid=sso-status]').textContent(), 'active');
  });

  it('when a platform admin creates a brokered connection through "New SSO connection" and edits its name, then both show and the organization has it', async () => {
    const portalOrg = await buildOrganization({ name: 'Portal Guild', plan: 'enterprise' });
    const createdBefore = await auditCount('sso.connection_created');
    await page.goto(`${base}/admin/resources/sso_connections/actions/newConnection`);
    await page.waitForSelector('[data-testid=sso-connection-form]');
    // the breadcrumb names the action as the page does (AdminJS's own said "New Connection")
    assert.deepEqual(await page.locator('.adminjs_Breadcrumbs a').allTextContents(), [
      'Dashboard',
      'SSO connections',
      'New SSO connection',
    ]);
    await page.fill('#organizationId', 'Portal Guild');
    await page.getByText('Portal Guild', { exact: true }).click();
    await page.fill('#name', 'Portal brokered');
    await page.check('#protocol-identity_service');
    await page.fill('#settings-connection', 'conn_portal');
    await page.fill('#domains', 'not a domain!');
    await shot('connection-new', 1400);
    await page.click('[data-testid=sso-connection-submit]');
    const message = page.locator('[data-testid=error-domains]');
    await message.waitFor();
    assert.match((await message.textContent()) ?? '', /is not a domain name/);
    await shot('connection-new-refused', 1400);
    assert.equal(await t.container.models.SsoConnection.count({ where: { organizationId: portalOrg.id } }), 0);

    await page.fill('#domains', 'portal.test');
    await page.click('[data-testid=sso-connection-submit]');
    await page.waitForURL(/\/admin\/resources\/sso_connections\/records\/[^/]+\/show$/);
    await page.locator('text=SSO connection Portal brokered created').first().waitFor();
    const created = await t.container.models.SsoConnection.findOne({ where: { organizationId: portalOrg.id } });
    assert.ok(created, 'the connection is in the chosen organization');
    assert.equal(created.protocol, 'identity_service');
    assert.deepEqual(created.settings, { connection: 'conn_portal' });
    assert.deepEqual(created.domains, ['portal.test']);
    assert.equal(created.status, 'draft');
    assert.equal(await auditCount('sso.connection_created'), createdBefore + 1);

    await page.goto(`${base}/admin/resources/sso_connections`);
    const row = page.locator('tbody tr', { hasText: 'Portal brokered' });
    await row.getByText('Portal Guild').waitFor();
    assert.match(
      ((await row.textContent()) ?? '').replace(/\s+/g, ' '),
      /Portal brokered.*Identity service.*portal\.test/,
    );

    await page.goto(`${base}/admin/resources/sso_connections/records/${created.id}/editConnection`);
    await page.waitForSelector('[data-testid=sso-connection-form]');
    assert.equal(await page.inputValue('#settings-connection'), 'conn_portal');
    assert.equal(await page.inputValue('#domains'), 'portal.test');
    await page.fill('#name', 'Portal brokered (renamed)');
    await page.click('[data-testid=sso-connection-submit]');
    await page.waitForURL(`${base}/admin/resources/sso_connections/records/${created.id}/show`);
    await page.getByText('Portal brokered (renamed)').first().waitFor();
    await shot('connection-edited', 1500);
    await created.reload();
    assert.equal(created.name, 'Portal brokered (renamed)');
    assert.equal(created.organizationId, portalOrg.id);
    assert.equal(await auditCount('sso.connection_updated'), 1);
  });
});
