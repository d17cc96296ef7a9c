// A loopback stand-in for the identity service's SSO API (WorkOS's: /sso/authorize, /sso/token,
// /connections/{id}) and its directory lists (/directory_users, /directory_groups, cursor-paged), so
// the brokered login and the pull sync run through the real @workos-inc/node client. The "IdP" step
// is skipped: /sso/authorize redirects straight back with a code for the next profile.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The identity service's webhook signature (WorkOS's): `t=<ms>, v1=<hex HMAC-SHA256(secret, "t.body")>`. */
export function signWebhook(secret: string, body: string, timestampMs: number): string {
  const mac = createHmac('sha256', secret).update(`${timestampMs}.${body}`).digest('hex');
  return `t=${timestampMs}, v1=${mac}`;
}

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

/** A directory user as WorkOS lists it (its groups by id). */
export interface StandInDirectoryUser {
  id: string;
  email: string;
  first_name?: string;
  last_name?: string;
  state?: 'active' | 'inactive';
  custom_attributes?: Record<string, unknown>;
  groups?: string[];
}

export interface StandInDirectoryGroup {
  id: string;
  name: string;
}

export interface IdentityServiceStandIn {
  url: string;
  apiKey: string;
  clientId: string;
  /** The profile the next /sso/authorize issues a code for, with the connection it belongs to. */
  nextLogin(profile: StandInProfile, at?: { connection?: string; organization?: string }): void;
  /** What /directory_users and /directory_groups list for a directory id (replaces what was there). */
  setDirectory(id: string, content: { users: StandInDirectoryUser[]; groups: StandInDirectoryGroup[] }): void;
  /** Lists answer this status (and no data) until set back to null. */
  failDirectoryLists(status: number | null): void;
  /** Items per page of the lists, whatever `limit` asks (small, to make the client follow `after`). */
  pageSize: number;
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
  const directories = new Map<string, { users: StandInDirectoryUser[]; groups: StandInDirectoryGroup[] }>();
  let listFailure: number | null = null;
  const paging = { pageSize: 2 };
  const stamp = '2026-01-01T00:00:00.000Z';
  const groupWire = (directoryId: string, g: StandInDirectoryGroup) => ({
    object: 'directory_group',
    id: g.id,
    idp_id: `idp-${g.id}`,
    directory_id: directoryId,
    organization_id: 'org_standin',
    name: g.name,
    created_at: stamp,
    updated_at: stamp,
    raw_attributes: {},
  });
  const userWire = (directoryId: string, u: StandInDirectoryUser) => {
    const groups = directories.get(directoryId)?.groups ?? [];
    return {
      object: 'directory_user',
      id: u.id,
      idp_id: `idp-${u.id}`,
      directory_id: directoryId,
      organization_id: 'org_standin',
      email: u.email,
      first_name: u.first_name ?? null,
      last_name: u.last_name ?? null,
      state: u.state ?? 'active',
      custom_attributes: u.custom_attributes ?? {},
      raw_attributes: { userName: u.email },
      groups: groups.filter((g) => u.groups?.includes(g.id)).map((g) => groupWire(directoryId, g)),
      created_at: stamp,
      updated_at: stamp,
    };
  };
  /** One page after the cursor (an item's id), WorkOS's list envelope. */
  const page = <T extends { id: string }>(items: T[], after: string | null) => {
    const start = after ? items.findIndex((item) => item.id === after) + 1 : 0;
    const data = items.slice(start, start + paging.pageSize);
    const more = start + paging.pageSize < items.length;
    return { object: 'list', data, list_metadata: { before: null, after: more ? data.at(-1)!.id : null } };
  };

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
      if (req.method === 'GET' && (url.pathname === '/directory_users' || url.pathname === '/directory_groups')) {
        if (req.headers.authorization !== `Bearer ${apiKey}`) return json(401, { message: 'Unauthorized' });
        if (listFailure) return json(listFailure, { message: 'The stand-in was told to fail' });
        const directoryId = url.searchParams.get('directory') ?? '';
        const content = directories.get(directoryId);
        if (!content) return json(404, { message: `Directory ${directoryId} not found` });
        const after = url.searchParams.get('after');
        return url.pathname === '/directory_users'
          ? json(
              200,
              page(
                content.users.map((u) => userWire(directoryId, u)),
                after,
              ),
            )
          : json(
              200,
              page(
                content.groups.map((g) => groupWire(directoryId, g)),
                after,
              ),
            );
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
    setDirectory(id, content) {
      directories.set(id, { users: [...content.users], groups: [...content.groups] });
    },
    failDirectoryLists(status) {
      listFailure = status;
    },
    get pageSize() {
      return paging.pageSize;
    },
    set pageSize(size: number) {
      paging.pageSize = size;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
