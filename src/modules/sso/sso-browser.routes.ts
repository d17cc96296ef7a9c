// The browser's side of SSO on the SSO surface (/auth): redirects out to the IdP and back into the
// app, the SAML ACS (a form post) and our SAML metadata. Errors are HTML pages (the surface renders
// them): "Invalid connection" for an unusable connection, "SSO login failed" for a refused answer.
import type { Request, Router } from 'express';
import type { SsoLoginService } from './sso-login.service.ts';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The address the browser came to, as the IdP saw it (BASE_URL's origin, not a forwarded Host). */
const requestUrl = (baseUrl: string, req: Request) => new URL(req.originalUrl, baseUrl);

export function ssoBrowserRoutes(router: Router, login: SsoLoginService, baseUrl: string): void {
  router.get('/sso', async (req, res) => {
    const redirect = await login.begin({
      connection: text(req.query.connection),
      organization: text(req.query.organization),
      email: text(req.query.email),
      returnTo: text(req.query.return_to),
    });
    res.redirect(302, redirect);
  });
  router.get('/callback/idp', async (req, res) => {
    res.redirect(302, await login.completeRedirect(requestUrl(baseUrl, req)));
  });
  router.post('/saml/:id/acs', async (req, res) => {
    const form = Object.fromEntries(
      Object.entries((req.body ?? {}) as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    res.redirect(302, await login.completeSaml(req.params.id!, requestUrl(baseUrl, req), form));
  });
  router.get('/saml/:id/metadata', async (req, res) => {
    res.type('application/samlmetadata+xml').send(await login.metadata(req.params.id!));
  });
}
