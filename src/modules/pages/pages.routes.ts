// Pages for people that the links Guildhall sends must reach with the default settings: the home
// page, choosing a new password (welcome and reset e-mails link to <portal>/reset-password) and the
// landing page of "Open the user's portal" after an impersonation. The member, client and sponsor
// portals are other applications; when MEMBER_PORTAL_URL and friends point at them, these pages are
// simply not linked any more.
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import type { Config } from '../../config.ts';
import { ROLE_LABELS } from '../users/index.ts';
import { escapeHtml, layout, PAGE_SECURITY_HEADERS } from './page.layout.ts';

const PORTAL_NAMES = { member: 'Member Portal', client: 'Client Portal', sponsor: 'Sponsor Portal' } as const;
type PortalKey = keyof typeof PORTAL_NAMES;
const isPortal = (name: string): name is PortalKey => Object.hasOwn(PORTAL_NAMES, name);

const asset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
const ASSETS: Record<string, { type: string; body: string }> = {
  'page.css': { type: 'text/css', body: asset('page.css') },
  'reset-password.js': { type: 'application/javascript', body: asset('reset-password.js') },
  'impersonation.js': { type: 'application/javascript', body: asset('impersonation.js') },
};

/** What the server is, in the words of its start-up line: NODE_ENV's mode, then APP_ENV's API environment. */
function homePage(config: Pick<Config, 'appEnv' | 'nodeEnv'>): string {
  const api =
    config.appEnv === 'sandbox' ? 'sandbox API environment (gh_test_ keys)' : 'live API environment (gh_live_ keys)';
  return layout(
    'Welcome',
    `<h1>Guildhall</h1>
<p>The membership platform for associations. This server runs in <strong>${escapeHtml(config.nodeEnv)}</strong> mode and serves the <strong>${api}</strong>.</p>
<ul class="links">
  <li><a href="/admin">Admin Portal</a>: users, organizations, impersonation, jobs (platform admins)</li>
  <li><a href="/api/docs">API reference</a>: every operation, with "Try it out"</li>
  <li><a href="/api/openapi.yaml">OpenAPI contract</a> (YAML) for generating clients</li>
  <li><a href="/health">Health</a> of the service and its database</li>
  <li><a href="/errors">Error codes</a> the API answers with</li>
</ul>`,
  );
}

function resetPasswordPage(portal: string): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>
<p>For your ${escapeHtml(portal)} account.</p>
<form id="reset-form" novalidate>
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" maxlength="1024" required aria-describedby="password-hint">
  <p class="hint" id="password-hint">At least 12 characters. A few unrelated words make a strong password.</p>
  <label for="confirm">Repeat the new password</label>
  <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" maxlength="1024" required>
  <button type="submit">Set password</button>
</form>
<div id="status" class="status" role="status" aria-live="polite"></div>`,
    'reset-password.js',
  );
}

function portalPage(portal: string): string {
  return layout(
    portal,
    `<h1>${escapeHtml(portal)}</h1>
<p>This is the default address of the ${escapeHtml(portal)}. The portals for members, client staff and
sponsors are separate applications built on the Guildhall API; point <code>MEMBER_PORTAL_URL</code>,
<code>CLIENT_PORTAL_URL</code> and <code>SPONSOR_PORTAL_URL</code> at them and Guildhall links there instead.</p>
<section id="session" hidden aria-labelledby="session-title" data-role-labels="${escapeHtml(JSON.stringify(ROLE_LABELS))}">
  <h2 id="session-title">Impersonation session</h2>
  <p>You opened this page from the Admin Portal after starting an impersonation. The token below lets
  an application act as this user for 15 minutes; every request made with it is logged.</p>
  <dl>
    <dt>Acting as</dt><dd id="target">…</dd>
    <dt>Role</dt><dd id="role">…</dd>
    <dt>Mode</dt><dd id="mode">…</dd>
  </dl>
  <p>Use it as a bearer token against the API, for example:</p>
  <pre id="curl"></pre>
  <button type="button" id="copy" class="secondary">Copy token</button>
  <button type="button" id="end">End impersonation</button>
</section>
<div id="status" class="status" role="status" aria-live="polite"></div>`,
    'impersonation.js',
  );
}

export function pageRoutes(config: Pick<Config, 'appEnv' | 'nodeEnv'>): Router {
  const router = Router();
  const html = (body: string) => (_req: unknown, res: import('express').Response) =>
    void res.set(PAGE_SECURITY_HEADERS).type('html').send(body);
  router.get('/', html(homePage(config)));
  router.get('/pages/:asset', (req, res, next) => {
    const found = ASSETS[req.params.asset];
    if (!found) return next();
    res
      .set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=300' })
      .type(found.type)
      .send(found.body);
  });
  router.get('/portal/:portal/reset-password', (req, res, next) => {
    const { portal } = req.params;
    if (!isPortal(portal)) return next();
    html(resetPasswordPage(PORTAL_NAMES[portal]))(req, res);
  });
  router.get('/portal/:portal', (req, res, next) => {
    const { portal } = req.params;
    if (!isPortal(portal)) return next();
    html(portalPage(PORTAL_NAMES[portal]))(req, res);
  });
  return router;
}
