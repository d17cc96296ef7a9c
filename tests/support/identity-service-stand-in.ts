// A loopback stand-in for the identity service's SSO API (WorkOS's: /sso/authorize, /sso/token,
// /connections/{id}), so the brokered login runs through the real @workos-inc/node client. The
// "IdP" step is skipped: /sso/authorize redirects straight back with a code for the next profile.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInProfile {
  email: string;
  first_name?: string;
  last_name?: string;
  groups?: string[];
  raw_attributes?: Record<string, unknown>;
  idp_id?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export interface IdentityServiceStandIn {
  url: string;
  apiKey: string;
  clientId: string;
  /** The profile the next /sso/authorize issues a code for, with the connection it belongs to. */
  nextLogin(profile: StandInProfile, at?: { connection?: string; organization?: string }): void;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startIdentityServiceStandIn(
  apiKey = 'sk_test_standin_0123456789',
  clientId = 'client_standin',
): Promise<IdentityServiceStandIn> {
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, { profile: StandInProfile; connection: string; organization: string | null }>();
  let next: { profile: StandInProfile; connection?: string; organization?: string } | null = null;

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, body });
      const json = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method === 'GET' && url.pathname === '/sso/authorize') {
        const code = randomUUID();
        const login = next ?? { profile: { email: 'nobody@example.test' } };
        next = null;
        codes.set(code, {
          profile: login.profile,
          connection: login.connection ?? url.searchParams.get('connection') ?? 'conn_unknown',
          organization: login.organization ?? url.searchParams.get('organization'),
        });
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/sso/token') {
        const form = new URLSearchParams(body);
        if (form.get('client_secret') !== apiKey || form.get('client_id') !== clientId)
          return json(401, { message: 'Unauthorized' });
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!issued) return json(400, { error: 'invalid_grant', error_description: 'The code is invalid or used.' });
        const { profile, connection, organization } = issued;
        return json(200, {
          access_token: 'idp_access_token',
          profile: {
            object: 'profile',
            id: `prof_${randomUUID()}`,
            idp_id: profile.idp_id ?? `idp-${profile.email}`,
            connection_id: connection,
            connection_type: 'OktaSAML',
            organization_id: organization,
            email: profile.email,
            first_name: profile.first_name,
            last_name: profile.last_name,
            groups: profile.groups,
            raw_attributes: profile.raw_attributes ?? {},
          },
        });
      }
      const connection = /^\/connections\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && connection) {
        if (req.headers.authorization !== `Bearer ${apiKey}`) return json(401, { message: 'Unauthorized' });
        const now = new Date().toISOString();
        return json(200, {
          object: 'connection',
          id: connection[1],
          organization_id: 'org_standin',
          name: 'Okta (stand-in)',
          connection_type: 'OktaSAML',
          state: 'active',
          domains: [],
          created_at: now,
          updated_at: now,
        });
      }
      json(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    clientId,
    requests,
    nextLogin(profile, at = {}) {
      next = { profile, ...at };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
