// An integrator's scenario (issue 28): a client generated from openapi.yaml (openapi-fetch over the
// generated types) drives one story end to end over a real port: members created, filtered and
// exported as CSV, a webhook delivery verified with the Standard Webhooks library, a resource
// uploaded (multipart and tus) and ingested, found by keyword, asked about in the chat, and the CRM
// status read. Every call is typed by the contract; the harness validates every response against it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import createClient from 'openapi-fetch';
import PDFDocument from 'pdfkit';
import { Webhook } from 'standardwebhooks';
import * as tus from 'tus-js-client';
import type { paths } from '../../src/types/openapi.d.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, mfaVerifiedTokenFor } from '../factories/index.ts';
import { eventually, startReceiver, type Receiver } from '../factories/webhook-receiver.ts';
import { parseCsv } from '../setup/csv.ts';
import { listen } from '../setup/raw-http.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

/** A one-page PDF with a text layer; `binary` is the latin1 string of its bytes (the contract types `format: binary` as a string). */
function pdfWith(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ compress: false });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    doc.on('error', reject);
    doc.text(text);
    doc.end();
  });
}

/** multipart/form-data for the upload form: string fields as text parts, `file` as a binary part. */
function uploadForm(fileName: string) {
  return (body: Record<string, unknown>): FormData => {
    const form = new FormData();
    for (const [name, value] of Object.entries(body)) {
      if (value === undefined) continue;
      if (name === 'file' && typeof value === 'string')
        form.append(name, new Blob([Buffer.from(value, 'latin1')], { type: 'application/pdf' }), fileName);
      else if (Array.isArray(value)) for (const item of value) form.append(name, String(item));
      else form.append(name, String(value));
    }
    return form;
  };
}

/**
 * The JSON body of an operation that also answers text (CSV, an event stream): the generated type is a
 * union with `string`, which a client narrows by the media type it asked for.
 */
function json<T extends object>(data: T | string | undefined): T {
  assert.ok(data !== undefined && typeof data !== 'string', 'expected a JSON body');
  return data;
}

describe("an integrator's scenario through a generated client", () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let receiver: Receiver;
  let baseUrl: string;
  let organizationId: string;

  before(async () => {
    t = await startTestApp({
      workers: true,
      env: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_TIMEOUT_MS: '3000' },
    });
    server = await listen(t);
    baseUrl = `http://127.0.0.1:${server.port}`;
    receiver = await startReceiver();
    organizationId = (await buildOrganization({ plan: 'enterprise' })).id;
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
    await t?.close();
  });

  it('when an integrator drives members, webhooks, the library, the chat and the CRM status, then each step works as the contract says', async () => {
    const { secret: keySecret } = await buildApiKey(organizationId);
    const apiKey = createClient<paths>({ baseUrl, headers: bearer(keySecret) });
    const platform = await buildUser({ role: 'ROLE_PLATFORM_ADMIN' });
    const asPlatform = createClient<paths>({ baseUrl, headers: bearer(await mfaVerifiedTokenFor(t, platform)) });

    // a webhook first, so the members created below are delivered
    const hook = await apiKey.POST('/api/webhooks', { body: { url: receiver.url, events: ['member.created'] } });
    assert.equal(hook.response.status, 201, JSON.stringify(hook.error));
    assert.ok(hook.data);
    const secret = hook.data.secret;
    assert.match(secret, /^whsec_/);

    // members: three created, two of them active
    const people = [
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test', status: 'active' },
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.test', status: 'active' },
      { firstName: 'Alan', lastName: 'Turing', email: 'alan@example.test', status: 'lapsed' },
    ] as const;
    const created: Record<string, string> = {};
    for (const person of people) {
      const res = await apiKey.POST('/api/members', { body: { ...person, tier: 'member' } });
      assert.equal(res.response.status, 201, JSON.stringify(res.error));
      assert.ok(res.data);
      assert.equal(res.data.email, person.email);
      created[person.email] = res.data.id;
    }

    const active = await apiKey.GET('/api/members', {
      params: { query: { status: ['active'], order: { lastName: 'asc' } } },
    });
    assert.equal(active.response.status, 200, JSON.stringify(active.error));
    assert.deepEqual(
      json(active.data).data.map((m) => m.email),
      ['grace@example.test', 'ada@example.test'],
    );

    const csv = await apiKey.GET('/api/members', {
      params: { query: { status: ['active'] } },
      headers: { Accept: 'text/csv' },
      parseAs: 'text',
    });
    assert.equal(csv.response.status, 200);
    assert.match(csv.response.headers.get('content-type') ?? '', /^text\/csv/);
    const [header, ...rows] = parseCsv(csv.data ?? '');
    assert.ok(header);
    const email = header.indexOf('email');
    const id = header.indexOf('id');
    assert.ok(email >= 0 && id >= 0, header.join(','));
    assert.deepEqual(rows.map((row) => row[email]).sort(), ['ada@example.test', 'grace@example.test']);
    assert.deepEqual(
      rows.map((row) => row[id]).sort(),
      [created['ada@example.test'], created['grace@example.test']].sort(),
    );

    // the deliveries, verified as a subscriber verifies them
    const deliveries = await receiver.waitFor(3);
    const verifier = new Webhook(secret);
    const delivered = deliveries.map(
      (d) => verifier.verify(d.body, d.headers) as { type: string; data: { email: string } },
    );
    assert.deepEqual(
      delivered.map((d) => d.type),
      ['member.created', 'member.created', 'member.created'],
    );
    assert.deepEqual(delivered.map((d) => d.data.email).sort(), people.map((p) => p.email).sort());
    assert.throws(() => verifier.verify(deliveries[0]!.body.replace('example', 'exemple'), deliveries[0]!.headers));

    // a resource, plain multipart
    const plain = await apiKey.POST('/api/resources', {
      body: {
        name: 'Member handbook',
        status: 'published',
        tags: ['handbook'],
        file: await pdfWith('Refunds of membership dues are granted within thirty days of payment.'),
      },
      bodySerializer: uploadForm('handbook.pdf'),
    });
    assert.equal(plain.response.status, 201, JSON.stringify(plain.error));
    assert.ok(plain.data);
    const handbookId = plain.data.id;

    // a resource, resumable (tus), then handed to the upload form by its id
    const tusBytes = Buffer.from(await pdfWith('The quarterly newsletter covers the harbour regatta.'), 'latin1');
    const uploadUrl = await new Promise<string>((resolve, reject) => {
      const upload = new tus.Upload(tusBytes, {
        endpoint: `${baseUrl}/api/uploads`,
        headers: bearer(keySecret),
        metadata: { filename: 'newsletter.pdf' },
        chunkSize: 4 * 1024,
        retryDelays: [],
        onError: reject,
        onSuccess: () => resolve(upload.url ?? ''),
      });
      upload.start();
    });
    const uploadId = uploadUrl.split('/').pop() ?? '';
    const resumed = await apiKey.POST('/api/resources', {
      body: { name: 'Quarterly newsletter', status: 'published', uploadId },
      bodySerializer: uploadForm('newsletter.pdf'),
    });
    assert.equal(resumed.response.status, 201, JSON.stringify(resumed.error));
    assert.ok(resumed.data);
    const newsletterId = resumed.data.id;

    for (const resourceId of [handbookId, newsletterId]) {
      const status = await eventually(async () => {
        const res = await apiKey.GET('/api/resources/{id}/ingestion', { params: { path: { id: resourceId } } });
        assert.equal(res.response.status, 200, JSON.stringify(res.error));
        return res.data && ['done', 'failed', 'no_text', 'unsupported'].includes(res.data.status) ? res.data : false;
      }, 30_000);
      assert.equal(status.status, 'done', JSON.stringify(status));
    }

    // found by a word of its text only
    const found = await apiKey.GET('/api/resources', { params: { query: { q: 'regatta' } } });
    assert.equal(found.response.status, 200, JSON.stringify(found.error));
    assert.deepEqual(
      found.data?.data.map((r) => r.id),
      [newsletterId],
    );

    // the chat, search mode (no ANTHROPIC_API_KEY); an API key may ask, as every step here but the CRM status
    const chat = await apiKey.POST('/api/resources/chat', {
      body: { query: 'Within how many days are refunds of dues granted?' },
    });
    assert.equal(chat.response.status, 200, JSON.stringify(chat.error));
    const answer = json(chat.data);
    assert.equal(answer.mode, 'search');
    assert.match(answer.answer, /thirty days/);
    assert.equal(answer.sources[0]?.resourceId, handbookId);

    // the CRM status, for a platform admin: not connected
    const crm = await asPlatform.GET('/api/admin/integrations/crm/{organizationId}/status', {
      params: { path: { organizationId } },
    });
    assert.equal(crm.response.status, 200, JSON.stringify(crm.error));
    assert.equal(crm.data?.connected, false);
  });
});
