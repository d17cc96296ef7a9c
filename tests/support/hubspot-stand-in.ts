// A loopback stand-in for HubSpot (its OAuth endpoints and the CRM v3 objects the sync uses), so the
// CRM module runs through the real @hubspot/api-client. It issues and expires tokens, revokes refresh
// tokens, enforces a rolling 10-second call budget per portal (429 with Retry-After), rejects unknown
// properties with PROPERTY_DOESNT_EXIST (the whole batch, as HubSpot does), fails chosen records inside
// a batch (207), and counts every call. The "consent screen" is skipped: /oauth/authorize redirects
// straight back with a code.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInContact {
  id: string;
  properties: Record<string, string>;
  /** How many upserts wrote it. */
  writes: number;
  archived: boolean;
}

export interface HubSpotStandIn {
  url: string;
  clientId: string;
  clientSecret: string;
  hubId: number;
  hubDomain: string;
  /** Contacts by lower-cased e-mail. */
  contacts: Map<string, StandInContact>;
  /** Companies by id (their name). */
  companies: Map<string, string>;
  /** Contact id -> company id (default association). */
  associations: Map<string, string>;
  /** Contact property names HubSpot knows. */
  properties: Set<string>;
  /** Calls per path ("POST /crm/v3/objects/contacts/batch/upsert"), 429s included. */
  calls: Map<string, number>;
  /** Sizes of the upsert batches it answered (200 or 207). */
  upsertBatchSizes: number[];
  /** The lower-cased e-mails of each upsert batch it answered (200 or 207), in the order answered. */
  upsertBatchEmails: string[][];
  /**
   * From now on contact upserts are admitted but wait, not applied and unanswered, until the returned
   * function is called (a slow HubSpot: work in flight stays in flight while a test looks at it).
   */
  holdUpserts(): () => void;
  /** The lower-cased e-mails of each contact upsert waiting on holdUpserts. */
  heldUpserts: string[][];
  /**
   * The next read of the contact properties is answered with the properties it found on arrival, but
   * only once `release` is called (a slow read that has gone stale by the time it lands).
   */
  holdNextPropertyRead(): { arrived: Promise<void>; release: () => void };
  /** Calls answered 429. */
  rateLimited: number;
  /** The most calls seen in any rolling 10 seconds (429s excluded): never above `budget` if clients behave. */
  maxInWindow(): number;
  /** Calls a portal may make in any rolling 10 seconds; beyond that 429. */
  budget: number;
  /** After `afterCalls` more CRM calls, the next `count` answer 429 with this Retry-After (a storm). */
  stormFor(count: number, retryAfterSeconds: number, afterCalls?: number): void;
  /** Records whose e-mail is here fail inside their batch (207, INVALID_EMAIL). */
  rejectEmails: Set<string>;
  /** A batch holding one of these e-mails is refused as a whole (400), as HubSpot refuses a malformed input. */
  poisonEmails: Set<string>;
  /** Archives of these contact ids are refused as a whole (400). */
  refuseArchiveOf: Set<string>;
  /** Records upserts wrote (the results of 200 and 207 answers). */
  upsertedRecords: number;
  /** CRM calls received (429s included): what Guildhall's daily use must equal. */
  crmCalls(): number;
  /** Lifetime of the access tokens it issues, in seconds. */
  accessTokenSeconds: number;
  /** Refresh tokens it accepts no longer (revoked by the portal's admin). */
  revokeAllRefreshTokens(): void;
  /** Access tokens it issued stop working now (as if they had expired). */
  expireAccessTokens(): void;
  tokenRequests: Array<{ grantType: string }>;
  revokedRefreshTokens: string[];
  close(): Promise<void>;
}

/** The service's HubSpot settings pointing at a stand-in (its API, its consent page and its app). */
export function hubSpotEnv(hub: Pick<HubSpotStandIn, 'url' | 'clientId' | 'clientSecret'>): Record<string, string> {
  return {
    HUBSPOT_API_URL: hub.url,
    HUBSPOT_AUTHORIZE_URL: `${hub.url}/oauth/authorize`,
    HUBSPOT_CLIENT_ID: hub.clientId,
    HUBSPOT_CLIENT_SECRET: hub.clientSecret,
  };
}

const DEFAULT_PROPERTIES = ['email', 'firstname', 'lastname', 'phone', 'company', 'lifecyclestage'];
const WINDOW_MS = 10_000;

export async function startHubSpotStandIn(options: { budget?: number } = {}): Promise<HubSpotStandIn> {
  const accessTokens = new Map<string, number>(); // token -> expires at (ms)
  const refreshTokens = new Set<string>();
  const codes = new Set<string>();
  const callTimes: number[] = [];
  let maxInWindow = 0;
  let storm = { left: 0, retryAfter: 0, after: 0 };
  let crmCalls = 0;
  let nextContactId = 1000;
  let upsertGate: Promise<void> | undefined;
  let propertyReadHold: { arrive: () => void; released: Promise<void> } | undefined;
  /** The types of the properties created through the API (the others are text). */
  const propertyTypes = new Map<string, string>();

  const standIn: Omit<HubSpotStandIn, 'url' | 'close'> = {
    clientId: 'hubspot-client-id',
    clientSecret: 'hubspot-client-secret',
    hubId: 4_815_162,
    hubDomain: 'guildhall-test.hubspot.test',
    contacts: new Map(),
    companies: new Map(),
    associations: new Map(),
    properties: new Set(DEFAULT_PROPERTIES),
    calls: new Map(),
    upsertBatchSizes: [],
    upsertBatchEmails: [],
    holdUpserts() {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      upsertGate = gate;
      return () => {
        if (upsertGate === gate) upsertGate = undefined;
        release();
      };
    },
    heldUpserts: [],
    holdNextPropertyRead() {
      let arrive = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      propertyReadHold = { arrive, released };
      return { arrived, release };
    },
    rateLimited: 0,
    maxInWindow: () => maxInWindow,
    budget: options.budget ?? 100,
    stormFor(count, retryAfterSeconds, afterCalls = 0) {
      storm = { left: count, retryAfter: retryAfterSeconds, after: afterCalls };
    },
    rejectEmails: new Set(),
    poisonEmails: new Set(),
    refuseArchiveOf: new Set(),
    upsertedRecords: 0,
    crmCalls: () => crmCalls,
    accessTokenSeconds: 1800,
    revokeAllRefreshTokens: () => refreshTokens.clear(),
    expireAccessTokens: () => accessTokens.clear(),
    tokenRequests: [],
    revokedRefreshTokens: [],
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const issueTokens = () => {
    const accessToken = `hs-access-${randomUUID()}`;
    const refreshToken = `hs-refresh-${randomUUID()}`;
    accessTokens.set(accessToken, Date.now() + standIn.accessTokenSeconds * 1000);
    refreshTokens.add(refreshToken);
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      expires_in: standIn.accessTokenSeconds,
      token_type: 'bearer',
    };
  };
  const validationError = (property: string) => ({
    status: 'error',
    message: `Property values were not valid: Property "${property}" does not exist`,
    correlationId: randomUUID(),
    category: 'VALIDATION_ERROR',
    errors: [
      {
        message: `Property "${property}" does not exist`,
        code: 'PROPERTY_DOESNT_EXIST',
        context: { propertyName: [property] },
      },
    ],
  });

  /** The rolling budget and the storm; true when the call may go on. */
  const admit = (res: http.ServerResponse): boolean => {
    const now = Date.now();
    while (callTimes.length > 0 && (callTimes[0] as number) <= now - WINDOW_MS) callTimes.shift();
    crmCalls += 1;
    if (storm.left > 0 && storm.after > 0) storm.after -= 1;
    else if (storm.left > 0) {
      storm.left -= 1;
      standIn.rateLimited += 1;
      json(
        res,
        429,
        {
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          policyName: 'TEN_SECONDLY_ROLLING',
        },
        { 'retry-after': String(storm.retryAfter) },
      );
      return false;
    }
    if (callTimes.length >= standIn.budget) {
      standIn.rateLimited += 1;
      const retryAfter = Math.max(1, Math.ceil(((callTimes[0] as number) + WINDOW_MS - now) / 1000));
      json(
        res,
        429,
        {
          status: 'error',
          message: 'You have reached your ten_secondly_rolling limit.',
          errorType: 'RATE_LIMIT',
          policyName: 'TEN_SECONDLY_ROLLING',
        },
        { 'retry-after': String(retryAfter) },
      );
      return false;
    }
    callTimes.push(now);
    maxInWindow = Math.max(maxInWindow, callTimes.length);
    return true;
  };

  const authorized = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = token ? accessTokens.get(token) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now()) {
      json(res, 401, {
        status: 'error',
        message: 'The OAuth token used to make this call expired.',
        correlationId: randomUUID(),
        category: expiresAt === undefined ? 'INVALID_AUTHENTICATION' : 'EXPIRED_AUTHENTICATION',
      });
      return false;
    }
    return true;
  };

  const upsert = (
    res: http.ServerResponse,
    inputs: Array<{ id: string; idProperty: string; properties: Record<string, string> }>,
  ) => {
    if (inputs.length > 100)
      return json(res, 400, { status: 'error', message: 'Batch too large', category: 'VALIDATION_ERROR' });
    for (const input of inputs) {
      const unknown = Object.keys(input.properties).find((name) => !standIn.properties.has(name));
      if (unknown) return json(res, 400, validationError(unknown));
      if (standIn.poisonEmails.has(input.id.toLowerCase())) {
        return json(res, 400, {
          status: 'error',
          message: `Invalid input: ${input.id}`,
          category: 'VALIDATION_ERROR',
          errors: [
            { message: 'Email address is malformed', code: 'INVALID_EMAIL', context: { propertyName: ['email'] } },
          ],
        });
      }
    }
    standIn.upsertBatchSizes.push(inputs.length);
    standIn.upsertBatchEmails.push(inputs.map((input) => input.id.toLowerCase()));
    const now = new Date().toISOString();
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of inputs) {
      const email = input.id.toLowerCase();
      if (standIn.rejectEmails.has(email)) {
        errors.push({
          status: 'error',
          category: 'VALIDATION_ERROR',
          message: `Email address ${input.id} is invalid`,
          context: { id: [input.id] },
          errors: [{ message: 'Invalid email', code: 'INVALID_EMAIL', context: { propertyName: ['email'] } }],
        });
        continue;
      }
      const existing = standIn.contacts.get(email);
      const contact = existing ?? { id: String(nextContactId++), properties: {}, writes: 0, archived: false };
      contact.properties = { ...contact.properties, ...input.properties, email };
      contact.writes += 1;
      contact.archived = false;
      standIn.contacts.set(email, contact);
      results.push({
        id: contact.id,
        properties: contact.properties,
        createdAt: now,
        updatedAt: now,
        archived: false,
        new: !existing,
      });
    }
    standIn.upsertedRecords += results.length;
    const body = {
      status: 'COMPLETE',
      results,
      startedAt: now,
      completedAt: now,
      ...(errors.length ? { errors, numErrors: errors.length } : {}),
    };
    return json(res, errors.length ? 207 : 200, body);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const raw = Buffer.concat(chunks).toString('utf8');
      const key = `${req.method} ${url.pathname.replace(/\/oauth\/v1\/(access|refresh)-tokens\/.+$/, '/oauth/v1/$1-tokens/{token}')}`;
      standIn.calls.set(key, (standIn.calls.get(key) ?? 0) + 1);

      if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
        const code = `hs-code-${randomUUID()}`;
        codes.add(code);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/oauth/v1/token') {
        const form = new URLSearchParams(raw);
        const grantType = form.get('grant_type') ?? '';
        standIn.tokenRequests.push({ grantType });
        if (form.get('client_id') !== standIn.clientId || form.get('client_secret') !== standIn.clientSecret) {
          return json(res, 400, { status: 'BAD_CLIENT_ID', message: 'unknown client', error: 'invalid_client' });
        }
        if (grantType === 'authorization_code' && codes.delete(form.get('code') ?? ''))
          return json(res, 200, issueTokens());
        if (grantType === 'refresh_token' && refreshTokens.has(form.get('refresh_token') ?? '')) {
          const fresh = issueTokens();
          // HubSpot keeps the refresh token: answer the same one
          refreshTokens.delete(fresh.refresh_token);
          return json(res, 200, { ...fresh, refresh_token: form.get('refresh_token') });
        }
        return json(res, 400, {
          status: 'BAD_REFRESH_TOKEN',
          message: 'missing or unknown refresh token',
          error: 'invalid_grant',
          error_description: 'missing or unknown refresh token',
        });
      }
      const tokenInfo = /^\/oauth\/v1\/access-tokens\/(.+)$/.exec(url.pathname);
      if (req.method === 'GET' && tokenInfo) {
        if (!accessTokens.has(decodeURIComponent(tokenInfo[1] as string)))
          return json(res, 404, { status: 'error', message: 'not found' });
        return json(res, 200, {
          token: tokenInfo[1],
          user: 'admin@association.test',
          hub_domain: standIn.hubDomain,
          scopes: [
            'crm.objects.contacts.read',
            'crm.objects.contacts.write',
            'crm.objects.companies.read',
            'crm.objects.companies.write',
            'timeline',
            'oauth',
          ],
          hub_id: standIn.hubId,
          app_id: 77,
          expires_in: standIn.accessTokenSeconds,
          user_id: 9,
          token_type: 'access',
        });
      }
      const refreshInfo = /^\/oauth\/v1\/refresh-tokens\/(.+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && refreshInfo) {
        const token = decodeURIComponent(refreshInfo[1] as string);
        refreshTokens.delete(token);
        standIn.revokedRefreshTokens.push(token);
        res.writeHead(204);
        return res.end();
      }

      if (!url.pathname.startsWith('/crm/v3/') && !url.pathname.startsWith('/crm/v4/'))
        return json(res, 404, { status: 'error', message: 'not found' });
      if (!authorized(req, res) || !admit(res)) return;
      const body = raw ? (JSON.parse(raw) as { inputs: never[] }) : { inputs: [] };
      if (req.method === 'GET' && url.pathname === '/crm/v3/properties/contacts') {
        const known = [...standIn.properties];
        const answer = () =>
          json(res, 200, {
            results: known.map((name) => ({
              name,
              label: name,
              type: propertyTypes.get(name) ?? 'string',
              fieldType: 'text',
              groupName: 'contactinformation',
              description: '',
              options: [],
            })),
          });
        const hold = propertyReadHold;
        propertyReadHold = undefined;
        if (!hold) return answer();
        hold.arrive();
        void hold.released.then(answer);
        return;
      }
      if (req.method === 'POST' && url.pathname === '/crm/v3/properties/contacts/batch/create') {
        const inputs = body.inputs as Array<{ name: string; label: string; type: string; fieldType: string }>;
        for (const input of inputs) {
          standIn.properties.add(input.name);
          propertyTypes.set(input.name, input.type);
        }
        const now = new Date().toISOString();
        return json(res, 201, {
          status: 'COMPLETE',
          results: inputs.map((input) => ({ ...input, groupName: 'contactinformation', description: '', options: [] })),
          startedAt: now,
          completedAt: now,
        });
      }
      if (req.method === 'POST' && url.pathname === '/crm/v3/objects/contacts/batch/upsert') {
        const gate = upsertGate;
        if (!gate) return upsert(res, body.inputs);
        const held = (body.inputs as Array<{ id: string }>).map((input) => input.id.toLowerCase());
        standIn.heldUpserts.push(held);
        return void gate.then(() => {
          standIn.heldUpserts.splice(standIn.heldUpserts.indexOf(held), 1);
          upsert(res, body.inputs);
        });
      }
      if (req.method === 'POST' && url.pathname === '/crm/v3/objects/companies/batch/create') {
        const now = new Date().toISOString();
        const results = (body.inputs as Array<{ properties: { name: string } }>).map((input) => {
          const id = String(nextContactId++);
          standIn.companies.set(id, input.properties.name);
          return { id, properties: { name: input.properties.name }, createdAt: now, updatedAt: now, archived: false };
        });
        return json(res, 201, { status: 'COMPLETE', results, startedAt: now, completedAt: now });
      }
      if (req.method === 'POST' && url.pathname === '/crm/v4/associations/contacts/companies/batch/associate/default') {
        const inputs = body.inputs as Array<{ from: { id: string }; to: { id: string } }>;
        for (const input of inputs) standIn.associations.set(input.from.id, input.to.id);
        const now = new Date().toISOString();
        return json(res, 200, {
          status: 'COMPLETE',
          results: inputs.map((input) => ({
            from: { id: input.from.id },
            to: { id: input.to.id },
            associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 },
          })),
          startedAt: now,
          completedAt: now,
        });
      }
      if (req.method === 'POST' && url.pathname === '/crm/v3/objects/contacts/batch/archive') {
        const ids = new Set((body.inputs as Array<{ id: string }>).map((input) => input.id));
        if ([...ids].some((id) => standIn.refuseArchiveOf.has(id)))
          return json(res, 400, { status: 'error', category: 'VALIDATION_ERROR', message: 'Cannot archive' });
        for (const contact of standIn.contacts.values()) if (ids.has(contact.id)) contact.archived = true;
        res.writeHead(204);
        return res.end();
      }
      return json(res, 404, { status: 'error', message: `no route ${req.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
