// HubSpot through its official client (@hubspot/api-client), pointed at HUBSPOT_API_URL (a local
// stand-in in tests). The client's own limiter and retries stay off: the burst limit is ours, shared
// by every instance (crm-budget.ts), and a 429 ends a run instead of sleeping inside a request.
// Every failure becomes a HubSpotError that says what HubSpot said: status, category, Retry-After.
import { Client } from '@hubspot/api-client';

/** Where HubSpot answers, and how long a call may take before it fails. */
export interface HubSpotEndpoint {
  url: string;
  timeoutMs: number;
}

/** The scopes we ask for, as HubSpot names them today. */
export const HUBSPOT_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'timeline',
] as const;

export interface HubSpotTokens {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
}

export interface HubSpotPortal {
  hubId: string;
  portalName: string;
  scopes: string[];
}

export interface HubSpotProperty {
  name: string;
  label: string;
  type: string;
}

export interface PropertyToCreate {
  name: string;
  label: string;
  type: 'string' | 'date' | 'enumeration' | 'number';
  fieldType: 'text' | 'date' | 'number';
}

export interface ContactUpsert {
  email: string;
  properties: Record<string, string>;
}

/** One record HubSpot refused inside a batch (a 207 answer), by the e-mail it was sent under. */
export interface RecordFailure {
  email: string | null;
  category: string;
  property: string | null;
  message: string;
}

export interface UpsertResult {
  contacts: Array<{ email: string; id: string }>;
  failures: RecordFailure[];
}

export class HubSpotError extends Error {
  constructor(
    readonly status: number,
    /** HubSpot's error code (PROPERTY_DOESNT_EXIST, INVALID_EMAIL ...) or category (RATE_LIMITS ...). */
    readonly category: string,
    message: string,
    readonly property: string | null = null,
    /** From Retry-After on a 429, in seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  get rateLimited(): boolean {
    return this.status === 429;
  }

  /** HubSpot refused the input itself (a 400 that is not about the token): splitting or fixing it may help. */
  get refusesInput(): boolean {
    return this.status === 400 && !this.unauthorized;
  }

  /** Nothing more can be sent now: rate-limited, the token refused, or HubSpot unreachable or failing. */
  get endsRun(): boolean {
    return this.rateLimited || this.unauthorized || this.status === 0 || this.status >= 500;
  }

  /** The token is expired, revoked or lacks a scope: only the admin reconnecting helps. */
  get unauthorized(): boolean {
    return (
      this.status === 401 ||
      (this.status === 400 && this.category === 'invalid_grant') ||
      (this.status === 403 && this.category === 'MISSING_SCOPES')
    );
  }
}

interface HubSpotErrorBody {
  status?: string;
  message?: string;
  category?: string;
  subCategory?: string;
  error?: string;
  error_description?: string;
  errorType?: string;
  errors?: Array<{ code?: string; message?: string; context?: Record<string, string[]> }>;
  context?: Record<string, string[]>;
}

function parseBody(raw: unknown): HubSpotErrorBody {
  if (typeof raw === 'string') {
    try {
      return JSON.parse(raw) as HubSpotErrorBody;
    } catch {
      return { message: raw };
    }
  }
  return raw && typeof raw === 'object' ? (raw as HubSpotErrorBody) : {};
}

/** The most specific code HubSpot gave: an error detail's code, the sub-category, the category. */
function codeOf(body: HubSpotErrorBody): string {
  return (
    body.errors?.find((detail) => detail.code)?.code ??
    (typeof body.subCategory === 'string' ? body.subCategory : undefined) ??
    body.error ??
    body.errorType ??
    body.category ??
    'UNKNOWN'
  );
}

function propertyOf(body: HubSpotErrorBody): string | null {
  const fromDetail = body.errors?.find((detail) => detail.context?.propertyName)?.context?.propertyName?.[0];
  return fromDetail ?? body.context?.propertyName?.[0] ?? null;
}

function retryAfterOf(headers: Record<string, string> | undefined): number | null {
  const value = headers?.['retry-after'] ?? headers?.['Retry-After'];
  if (value === undefined) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

/** The client's ApiException (code, body, headers), a network failure or anything else, as a HubSpotError. */
export function toHubSpotError(error: unknown): HubSpotError {
  if (error instanceof HubSpotError) return error;
  const candidate = error as { code?: unknown; body?: unknown; headers?: Record<string, string> };
  if (typeof candidate?.code === 'number' && candidate.code >= 100) {
    const body = parseBody(candidate.body);
    return new HubSpotError(
      candidate.code,
      codeOf(body),
      body.message ?? body.error_description ?? `HubSpot answered ${candidate.code}`,
      propertyOf(body),
      retryAfterOf(candidate.headers),
    );
  }
  return new HubSpotError(0, 'NETWORK', error instanceof Error ? error.message : String(error));
}

/**
 * One call, bounded by the endpoint's timeout: the client has none (its node-fetch is given no
 * signal, and its middleware, where an agent with a socket timeout would go, is not applied to
 * calls), so a call HubSpot never answered held the sync worker, every organization's, until the
 * job expired. An abandoned call's socket closes when HubSpot answers or drops it.
 */
async function call<T>(endpoint: HubSpotEndpoint, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new HubSpotError(0, 'TIMEOUT', `HubSpot did not answer within ${endpoint.timeoutMs} ms`)),
      endpoint.timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), timedOut]);
  } catch (error) {
    throw toHubSpotError(error);
  } finally {
    clearTimeout(timer);
  }
}

export interface HubSpotApp {
  clientId: string;
  clientSecret: string;
}

/** The OAuth side: exchanging codes, refreshing and revoking tokens, reading what a token is for. */
export class HubSpotOAuth {
  private readonly client: Client;

  constructor(
    private readonly endpoint: HubSpotEndpoint,
    private readonly app: HubSpotApp,
  ) {
    this.client = new Client({ basePath: endpoint.url });
  }

  exchangeCode(code: string, redirectUri: string): Promise<HubSpotTokens> {
    return call(this.endpoint, async () => {
      const tokens = await this.client.oauth.tokensApi.create(
        'authorization_code',
        code,
        redirectUri,
        this.app.clientId,
        this.app.clientSecret,
      );
      return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresInSeconds: tokens.expiresIn };
    });
  }

  refresh(refreshToken: string): Promise<HubSpotTokens> {
    return call(this.endpoint, async () => {
      const tokens = await this.client.oauth.tokensApi.create(
        'refresh_token',
        undefined,
        undefined,
        this.app.clientId,
        this.app.clientSecret,
        refreshToken,
      );
      return {
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken ?? refreshToken,
        expiresInSeconds: tokens.expiresIn,
      };
    });
  }

  portalOf(accessToken: string): Promise<HubSpotPortal> {
    return call(this.endpoint, async () => {
      const info = await this.client.oauth.accessTokensApi.get(accessToken);
      return { hubId: String(info.hubId), portalName: info.hubDomain ?? String(info.hubId), scopes: info.scopes };
    });
  }

  revoke(refreshToken: string): Promise<void> {
    return call(this.endpoint, () => this.client.oauth.refreshTokensApi.archive(refreshToken));
  }

  get baseUrl(): string {
    return this.endpoint.url;
  }
}

/** The CRM side, for one portal's access token. */
export class HubSpotCrm {
  private readonly client: Client;

  constructor(
    private readonly endpoint: HubSpotEndpoint,
    accessToken: string,
  ) {
    this.client = new Client({ basePath: endpoint.url, accessToken });
  }

  contactProperties(): Promise<HubSpotProperty[]> {
    return call(this.endpoint, async () => {
      const page = await this.client.crm.properties.coreApi.getAll('contacts');
      return page.results.map((property) => ({ name: property.name, label: property.label, type: property.type }));
    });
  }

  createContactProperties(properties: PropertyToCreate[]): Promise<void> {
    return call(this.endpoint, async () => {
      await this.client.crm.properties.batchApi.create('contacts', {
        inputs: properties.map((property) => ({
          ...property,
          groupName: 'contactinformation',
          // biome-ignore lint/suspicious/noExplicitAny: the generated enums accept these strings
          type: property.type as any,
          // biome-ignore lint/suspicious/noExplicitAny: idem
          fieldType: property.fieldType as any,
        })),
      });
    });
  }

  /** Creates or updates contacts by e-mail; a 207 names the records HubSpot refused. */
  upsertContacts(contacts: ContactUpsert[]): Promise<UpsertResult> {
    return call(this.endpoint, async () => {
      const answer = await this.client.crm.contacts.batchApi.upsert({
        inputs: contacts.map((contact) => ({ id: contact.email, idProperty: 'email', properties: contact.properties })),
      });
      const failures = ('errors' in answer ? (answer.errors ?? []) : []).map((error): RecordFailure => {
        const body = error as unknown as HubSpotErrorBody;
        const context = body.context ?? {};
        return {
          email: context.id?.[0] ?? context.ids?.[0] ?? context.email?.[0] ?? null,
          category: codeOf(body),
          property: propertyOf(body),
          message: body.message ?? 'HubSpot refused the record',
        };
      });
      return {
        contacts: answer.results.map((result) => ({ email: String(result.properties.email ?? ''), id: result.id })),
        failures,
      };
    });
  }

  archiveContacts(contactIds: string[]): Promise<void> {
    return call(this.endpoint, () =>
      this.client.crm.contacts.batchApi.archive({ inputs: contactIds.map((id) => ({ id })) }),
    );
  }

  /** Creates companies by name; answers their ids in the same order. */
  createCompanies(names: string[]): Promise<Array<{ name: string; id: string }>> {
    return call(this.endpoint, async () => {
      const answer = await this.client.crm.companies.batchApi.create({
        inputs: names.map((name) => ({ properties: { name }, associations: [] })),
      });
      return answer.results.map((result) => ({ name: String(result.properties.name ?? ''), id: result.id }));
    });
  }

  associateContactsWithCompanies(pairs: Array<{ contactId: string; companyId: string }>): Promise<void> {
    return call(this.endpoint, async () => {
      await this.client.crm.associations.v4.batchApi.createDefault('contacts', 'companies', {
        inputs: pairs.map((pair) => ({ _from: { id: pair.contactId }, to: { id: pair.companyId } })),
      });
    });
  }
}
