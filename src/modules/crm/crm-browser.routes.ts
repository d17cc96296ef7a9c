// HubSpot's browser redirect after a client admin approved (or refused) the connection, on the SSO
// surface (/auth). The code is exchanged server side; the browser then goes to a result page without
// the code in its address, which says what happened and leads back to the Client Portal.
import type { Router } from 'express';
import type { CallbackResult, CrmConnectionService } from './crm-connection.service.ts';

const RESULT_MESSAGES: Record<CallbackResult, string> = {
  connected: 'Guildhall now sends your members to HubSpot. The first sync has started.',
  expired: 'This link has expired or was already used. Start again from the Client Portal.',
  denied: 'HubSpot did not grant access; nothing was changed.',
  taken: 'This HubSpot portal is already connected to another organization.',
  failed: 'HubSpot refused the connection; nothing was changed. Try again.',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export function crmBrowserRoutes(router: Router, connections: CrmConnectionService, clientPortalUrl: string): void {
  router.get('/callback/crm', async (req, res) => {
    const outcome = await connections.complete({
      code: text(req.query.code),
      state: text(req.query.state),
      error: text(req.query.error),
    });
    res.redirect(302, `/auth/crm/result?result=${outcome.result}`);
  });
  // the page reads only a known outcome from its address, never a message: nobody can make it say anything else
  router.get('/crm/result', (req, res) => {
    const result = String(req.query.result) as CallbackResult;
    // an own key only: `toString` is on every object (it was a 500)
    const message = Object.hasOwn(RESULT_MESSAGES, result) ? RESULT_MESSAGES[result] : RESULT_MESSAGES.failed;
    const connected = result === 'connected';
    res
      .status(200)
      .type('html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>HubSpot connection</title></head>` +
          `<body><main><h1>${connected ? 'HubSpot is connected' : 'HubSpot was not connected'}</h1>` +
          `<p>${escapeHtml(message)}</p><p><a href="${escapeHtml(clientPortalUrl)}">Back to the Client Portal</a></p></main></body></html>`,
      );
  });
}
