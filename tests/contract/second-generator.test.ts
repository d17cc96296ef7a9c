// A second generator (issue 28): the contract also generates a working client with
// swagger-typescript-api (classes with a method per operationId, fetch underneath), which the test
// writes into a temporary folder and drives over a real port: members created, filtered, read,
// replaced and deleted, a webhook subscribed, the CRM status read, and a refusal arriving as
// problem+json. The harness validates every response against the contract, as for openapi-fetch.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { generateApi } from 'swagger-typescript-api';
import { buildApiKey, buildOrganization, buildUser, mfaVerifiedTokenFor } from '../factories/index.ts';
import { listen } from '../setup/raw-http.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

interface Answer<T> {
  status: number;
  data: T;
  error: { type?: string; title?: string; status?: number; code?: string } | null;
}
type Call<A extends unknown[], T> = (...args: A) => Promise<Answer<T>>;
interface Member {
  id: string;
  email: string;
  status: string;
  firstName: string;
}

/** The part of the generated `Api` class this scenario calls (the generated file is typed; it is made at run time). */
interface GeneratedApi {
  api: {
    createMember: Call<[Record<string, unknown>], Member>;
    listMembers: Call<[Record<string, unknown>], { data: Member[]; totalItems: number }>;
    getMember: Call<[string], Member>;
    replaceMember: Call<[string, Record<string, unknown>], Member>;
    deleteMember: Call<[string], unknown>;
    createWebhook: Call<[Record<string, unknown>], { id: string; secret: string }>;
    getCrmStatus: Call<[string], { connected: boolean; rate_limit: { daily_limit: number } }>;
  };
}
type ApiClass = new (config: { baseUrl: string; baseApiParams: { headers: Record<string, string> } }) => GeneratedApi;

/** A refused call rejects with the response; its `error` is the parsed problem. */
async function refusal(call: Promise<unknown>): Promise<Answer<unknown>> {
  try {
    await call;
  } catch (response) {
    return response as Answer<unknown>;
  }
  assert.fail('expected the call to be refused');
}

describe('a client made by a second generator (swagger-typescript-api)', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let folder: string;
  let Api: ApiClass;
  let baseUrl: string;
  let organizationId: string;

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'guildhall-generated-'));
    await generateApi({
      input: path.resolve('openapi.yaml'),
      output: folder,
      fileName: 'client.ts',
      httpClientType: 'fetch',
      silent: true,
    });
    ({ Api } = (await import(pathToFileURL(path.join(folder, 'client.ts')).href)) as { Api: ApiClass });
    t = await startTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });
    server = await listen(t);
    baseUrl = `http://127.0.0.1:${server.port}`;
    organizationId = (await buildOrganization({ plan: 'enterprise' })).id;
  });
  after(async () => {
    await server?.close();
    await t?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const client = (secret: string) =>
    new Api({ baseUrl, baseApiParams: { headers: { Authorization: `Bearer ${secret}` } } });

  it('when an integrator drives members, a webhook and the CRM status through it, then each call answers as the contract says', async () => {
    const { secret } = await buildApiKey(organizationId);
    const { api } = client(secret);

    const ada = await api.createMember({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@gen.test',
      tier: 'member',
    });
    assert.equal(ada.status, 201);
    assert.equal(ada.data.email, 'ada@gen.test');
    const alan = await api.createMember({
      firstName: 'Alan',
      lastName: 'Turing',
      email: 'alan@gen.test',
      status: 'lapsed',
    });
    assert.equal(alan.status, 201);

    const lapsed = await api.listMembers({ status: ['lapsed'] });
    assert.equal(lapsed.status, 200);
    assert.deepEqual(
      lapsed.data.data.map((m) => m.email),
      ['alan@gen.test'],
    );

    const read = await api.getMember(ada.data.id);
    assert.equal(read.data.firstName, 'Ada');
    const replaced = await api.replaceMember(ada.data.id, {
      firstName: 'Augusta Ada',
      lastName: 'King',
      email: 'ada@gen.test',
      status: 'active',
    });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.data.firstName, 'Augusta Ada');

    const hook = await api.createWebhook({ url: 'http://127.0.0.1:9/in', events: ['member.created'] });
    assert.equal(hook.status, 201);
    assert.match(hook.data.secret, /^whsec_/);

    assert.equal((await api.deleteMember(alan.data.id)).status, 204);
    const gone = await refusal(api.getMember(alan.data.id));
    assert.equal(gone.status, 404);
    assert.equal(gone.error?.status, 404);

    const invalid = await refusal(api.createMember({ firstName: 'No', lastName: 'Email' }));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.error?.status, 400, 'the problem+json body is parsed into error');

    const platform = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const status = await client(await mfaVerifiedTokenFor(t, platform)).api.getCrmStatus(organizationId);
    assert.equal(status.status, 200);
    assert.equal(status.data.connected, false);
    assert.ok(status.data.rate_limit.daily_limit > 0);
  });
});
