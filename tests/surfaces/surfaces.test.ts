// Each surface's parsing, credential and error format, through test-only routes mounted by the real
// factories (createApp's `routes` option), plus the upload idempotency seam and SSE streaming.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { actorOf } from '../../src/http/context.ts';
import { idempotent } from '../../src/http/idempotency.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { receiveUpload } from '../../src/http/surfaces/body.ts';
import { jsonPayload } from '../../src/http/surfaces/inbound-webhook.surface.ts';
import { sendScim } from '../../src/http/surfaces/renderers.ts';
import { directoryActor } from '../../src/shared/access/actor.ts';
import { AppError } from '../../src/shared/errors.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { connect, listen } from '../setup/raw-http.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const SCIM_TOKEN = 'scim-directory-token-for-tests';
const SIGNING_SECRET = 'inbound-signing-secret';
const sign = (body: string) => createHmac('sha256', SIGNING_SECRET).update(body).digest('hex');

/** A sink that counts what an upload route streamed into it. */
const countingSink = (counter: { bytes: number }) =>
  new Writable({
    write(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      callback();
    },
  });

describe('surfaces: one router, parser, credential and error format per kind of caller', () => {
  let t: TestApp;
  let app: ReturnType<typeof createApp>;
  let http_: ReturnType<typeof supertest>;
  let token: string;
  const uploadsHandled: number[] = [];
  const quotaChecks: Array<number | undefined> = [];
  let releaseSecondEvent: () => void = () => undefined;

  before(async () => {
    t = await startTestApp();
    const organizationId = (await buildOrganization()).id;
    token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    // the contract fixture: one operation answering text/event-stream
    const contract = loadContract();
    contract.document.paths!['/api/test/events'] = {
      post: {
        operationId: 'testEventStream',
        responses: {
          '200': { description: 'Events', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '409': { $ref: '#/components/responses/Conflict' },
        },
      },
    } as never;
    const idempotency = idempotent(t.container.services.idempotency, t.container.logger);
    app = createApp(t.container, {
      contract,
      uploadQuota: async (_actor, upload) => {
        quotaChecks.push(upload.declaredBytes);
        if ((upload.declaredBytes ?? 0) > 5_000)
          throw new AppError('payload_too_large', 'Over the organization storage quota');
      },
      scimTokens: async (presented) =>
        presented === SCIM_TOKEN ? directoryActor('directory-1', organizationId) : null,
      routes: {
        api: [
          (router) =>
            router.post('/api/test/events', idempotency, async (_req, res) => {
              res.status(200).setHeader('Content-Type', 'text/event-stream');
              res.setHeader('Cache-Control', 'no-cache');
              res.flushHeaders();
              res.write('event: first\ndata: {"n":1}\n\n');
              await new Promise<void>((resolve) => (releaseSecondEvent = resolve));
              res.end('event: second\ndata: {"n":2}\n\n');
            }),
        ],
        uploads: [
          (uploads) =>
            uploads.post('/uploads/test', { maxBytes: 10_000 }, async (req, res) => {
              const counter = { bytes: 0 };
              const received = await receiveUpload(req, countingSink(counter), 10_000);
              if (await req.streamIdempotency?.settle(received.sha256)) return;
              uploadsHandled.push(received.bytes);
              res.status(201).json({ bytes: counter.bytes, sha256: received.sha256, actor: actorOf(req).type });
            }),
        ],
        scim: [
          // beside the directory module's /Users and /Groups, which answer real directories' tokens only
          (router) => {
            router.get('/TestUsers', (req, res) =>
              sendScim(res, {
                schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
                totalResults: 0,
                Resources: [],
                actor: req.context.actor?.type,
              }),
            );
            router.post('/TestUsers', (req, res) => {
              if (typeof req.body.userName !== 'string')
                throw new AppError('validation_failed', 'userName is required', {
                  errors: [{ field: 'userName', message: 'is required' }],
                });
              res.status(201).json({
                schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
                id: 'u1',
                userName: req.body.userName,
              });
            });
          },
        ],
        sso: [
          (router) => {
            router.post('/callback/test', (req, res) => {
              if (req.body.code === 'bad')
                throw new AppError('invalid_credentials', 'The sign-in <b>code</b> was refused');
              res.redirect(303, `/portal/member?state=${encodeURIComponent(req.body.state)}`);
            });
          },
        ],
        inboundWebhooks: [
          (webhooks) =>
            webhooks.receive('/test', {
              verify: (req) => {
                if (req.get('x-signature') !== sign(req.rawBody.toString('utf8')))
                  throw new AppError('unauthenticated', 'The webhook signature does not match');
              },
              handle: (req, res) =>
                void res
                  .status(200)
                  .json({ received: jsonPayload<{ event: string }>(req).event, bytes: req.rawBody!.length }),
            }),
        ],
      },
    });
    http_ = supertest(app);
  });
  after(() => t.close());

  describe('uploads (problem+json, no JSON parser, credential and quota before the body)', () => {
    it('when an upload is sent, then the route streams the raw bytes, whatever their content type', async () => {
      const body = '{"not": "parsed"}';
      const res = await http_
        .post('/api/uploads/test')
        .set(bearer(token))
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      assert.equal(res.body.bytes, Buffer.byteLength(body));
      assert.equal(res.body.actor, 'user');
    });

    it('when the credential is missing or the quota refuses, then the answer comes before a byte of the body is sent', async () => {
      const server = await listen({ ...t, app });
      try {
        for (const [auth, status, code] of [
          ['', 401, 'unauthenticated'],
          [`Authorization: Bearer ${token}\r\n`, 413, 'payload_too_large'],
        ] as const) {
          const client = connect(server.port);
          // the headers announce 8 000 bytes (under the route's limit, over the quota); none are sent
          client.socket.write(
            `POST /api/uploads/test HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/octet-stream\r\nContent-Length: 8000\r\n\r\n`,
          );
          const res = await client.response(3_000);
          assert.equal(res.status, status);
          assert.equal(JSON.parse(res.body).code, code);
          assert.match(res.headers['content-type']!, /problem\+json/);
          if (status === 401) assert.equal(res.headers['www-authenticate'], 'Bearer realm="Guildhall"');
          client.socket.destroy();
        }
        assert.equal(quotaChecks.at(-1), 8000);
      } finally {
        await server.close();
      }
    });

    it('when a chunked upload passes the route limit, then 413 and the connection closes', async () => {
      const server = await listen({ ...t, app });
      try {
        const client = connect(server.port);
        client.socket.write(
          `POST /api/uploads/test HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
        );
        for (let i = 0; i < 3; i++) client.socket.write(`fa0\r\n${'x'.repeat(4000)}\r\n`); // 12 000 bytes, limit 10 000
        const res = await client.response(3_000);
        assert.equal(res.status, 413);
        assert.equal(JSON.parse(res.body).code, 'payload_too_large');
        await client.closed;
      } finally {
        await server.close();
      }
    });

    it('when an Idempotency-Key is replayed, then the same body is answered from the record and another body is refused', async () => {
      const before = uploadsHandled.length;
      const key = `upload-${Date.now()}`;
      const first = await http_
        .post('/api/uploads/test')
        .set(bearer(token))
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('first body'))
        .expect(201);
      const replay = await http_
        .post('/api/uploads/test')
        .set(bearer(token))
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('first body'))
        .expect(201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.body, first.body);
      const other = await http_
        .post('/api/uploads/test')
        .set(bearer(token))
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('other body'));
      expectProblem(other, 422, 'idempotency_key_reused');
      assert.equal(uploadsHandled.length - before, 1, 'the route committed once');
    });

    it('when a request matches no upload route, then it goes on to the JSON API', async () => {
      await http_.get('/api/members').set(bearer(token)).expect(200);
      // /api/uploads/{uploadId} is the tus contract's path (PUT there is 405), so a path of no operation
      expectProblem(await http_.put('/api/uploads-unknown/test').set(bearer(token)).send({}), 404, 'route_not_found');
    });
  });

  describe('SCIM (its own tokens, application/scim+json, SCIM errors)', () => {
    const scimError = (res: supertest.Response, status: number, scimType?: string) => {
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.match(res.headers['content-type'] ?? '', /^application\/scim\+json/);
      const body = JSON.parse(res.text);
      assert.deepEqual(body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
      assert.equal(body.status, String(status));
      assert.equal(body.scimType, scimType);
      assert.equal(typeof body.detail, 'string');
      return body;
    };

    it('when the directory token is missing or wrong, then 401 as a SCIM error with a Bearer challenge', async () => {
      scimError(await http_.get('/scim/v2/TestUsers'), 401);
      const wrong = await http_.get('/scim/v2/TestUsers').set(bearer(token)); // an API credential is not a directory token
      scimError(wrong, 401);
      assert.match(wrong.headers['www-authenticate'], /^Bearer realm="SCIM"/);
    });

    it('when the directory token is valid, then the directory principal acts and answers are application/scim+json', async () => {
      const res = await http_.get('/scim/v2/TestUsers').set(bearer(SCIM_TOKEN)).expect(200);
      assert.match(res.headers['content-type'], /^application\/scim\+json/);
      assert.equal(JSON.parse(res.text).actor, 'directory');
      const created = await http_
        .post('/scim/v2/TestUsers')
        .set(bearer(SCIM_TOKEN))
        .set('Content-Type', 'application/scim+json')
        .send(JSON.stringify({ userName: 'ada' }))
        .expect(201);
      assert.match(created.headers['content-type'], /^application\/scim\+json/);
      assert.equal(JSON.parse(created.text).userName, 'ada');
    });

    it('when the body is malformed, invalid, of another type or the path unknown, then SCIM errors with their scimType', async () => {
      scimError(
        await http_
          .post('/scim/v2/TestUsers')
          .set(bearer(SCIM_TOKEN))
          .set('Content-Type', 'application/scim+json')
          .send('{"userName": '),
        400,
        'invalidSyntax',
      );
      const invalid = scimError(
        await http_
          .post('/scim/v2/TestUsers')
          .set(bearer(SCIM_TOKEN))
          .set('Content-Type', 'application/scim+json')
          .send('{}'),
        400,
        'invalidValue',
      );
      assert.match(invalid.detail, /userName/);
      scimError(
        await http_
          .post('/scim/v2/TestUsers')
          .set(bearer(SCIM_TOKEN))
          .set('Content-Type', 'text/plain')
          .send('userName=ada'),
        415,
      );
      scimError(await http_.get('/scim/v2/Nothing').set(bearer(SCIM_TOKEN)), 404);
    });

    it('when a SCIM body or filter holds a NUL character, then a SCIM 400 names it before any route runs', async () => {
      const body = scimError(
        await http_
          .post('/scim/v2/TestUsers')
          .set(bearer(SCIM_TOKEN))
          .set('Content-Type', 'application/scim+json')
          .send('{"userName":"ada\\u0000x"}'),
        400,
        'invalidValue',
      );
      assert.match(body.detail, /userName/);
      scimError(
        await http_.get('/scim/v2/TestUsers?filter=userName%20eq%20%22a%00%22').set(bearer(SCIM_TOKEN)),
        400,
        'invalidValue',
      );
    });
  });

  describe('SSO (form posts, redirects, HTML error pages)', () => {
    it('when a form is posted, then it is parsed and the browser is redirected', async () => {
      const res = await http_.post('/auth/callback/test').type('form').send({ code: 'good', state: 'abc' }).expect(303);
      assert.equal(res.headers.location, '/portal/member?state=abc');
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    it('when sign-in fails, then an HTML page says why (escaped) with the request id to quote', async () => {
      const res = await http_.post('/auth/callback/test').type('form').send({ code: 'bad', state: 'x' }).expect(401);
      assert.match(res.headers['content-type'], /^text\/html/);
      assert.match(res.text, /<h1>Invalid credentials<\/h1>/);
      assert.match(res.text, /The sign-in &#60;b&#62;code&#60;\/b&#62; was refused/);
      assert.ok(res.text.includes(res.headers['x-request-id']));
      const json = await http_.post('/auth/callback/test').send({ code: 'good' }).expect(415);
      assert.match(json.headers['content-type'], /^text\/html/);
      const missing = await http_.get('/auth/nowhere').expect(404);
      assert.match(missing.text, /<h1>Route not found<\/h1>/);
    });
  });

  describe('inbound webhooks (raw body kept for the signature, problem+json)', () => {
    it('when the signature over the exact bytes matches, then the route gets the payload', async () => {
      const body = '{ "event" :  "dsync.user.created" }'; // spacing a re-serialised body would lose
      const res = await http_
        .post('/webhooks/test')
        .set('Content-Type', 'application/json')
        .set('X-Signature', sign(body))
        .send(body)
        .expect(200);
      assert.deepEqual(res.body, { received: 'dsync.user.created', bytes: Buffer.byteLength(body) });
    });

    it('when the signature does not match or the payload is not JSON, then problem+json', async () => {
      const body = '{"event":"dsync.user.created"}';
      expectProblem(
        await http_
          .post('/webhooks/test')
          .set('Content-Type', 'application/json')
          .set('X-Signature', sign(`${body} `))
          .send(body),
        401,
        'unauthenticated',
      );
      const garbled = '{"event":';
      expectProblem(
        await http_
          .post('/webhooks/test')
          .set('Content-Type', 'application/json')
          .set('X-Signature', sign(garbled))
          .send(garbled),
        400,
        'malformed_body',
      );
      expectProblem(await http_.post('/webhooks/unknown').send(body), 404, 'route_not_found');
      const nul = '{"event":"dsync.user\\u0000.created"}';
      const refused = expectProblem(
        await http_
          .post('/webhooks/test')
          .set('Content-Type', 'application/json')
          .set('X-Signature', sign(nul))
          .send(nul),
        400,
        'validation_failed',
      );
      assert.equal(refused.errors[0].field, 'event');
    });
  });

  describe('HEAD and Accept on the JSON API', () => {
    it('when an operation answers GET, then HEAD gets its status and headers without a body; elsewhere 405 names HEAD', async () => {
      const get = await http_.get('/api/members').set(bearer(token)).expect(200);
      const head = await http_.head('/api/members').set(bearer(token)).expect(200);
      assert.equal(head.headers['content-type'], get.headers['content-type']);
      assert.equal(head.text, undefined);
      assert.equal(head.headers['ratelimit-policy'], get.headers['ratelimit-policy']);
      // errors keep their status (the problem's body is not sent)
      await http_.head('/api/members').expect(401);
      await http_.head('/api/members/00000000-0000-4000-8000-000000000000').set(bearer(token)).expect(404);
      const refused = await http_.head('/api/auth/login').expect(405);
      assert.equal(refused.headers.allow, 'POST');
    });

    it('when the Accept header names no media type a list produces, then 406; a browser’s Accept gets JSON', async () => {
      expectProblem(
        await http_.get('/api/members').set(bearer(token)).set('Accept', 'application/xml'),
        406,
        'not_acceptable',
      );
      expectProblem(
        await http_.get('/api/events').set(bearer(token)).set('Accept', 'text/csv;q=0, text/html'),
        406,
        'not_acceptable',
      );
      const browser = await http_
        .get('/api/members')
        .set(bearer(token))
        .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8')
        .expect(200);
      assert.match(browser.headers['content-type'], /^application\/json/);
    });

    it('when the Accept header names a media type with parameters, then that type is chosen as without them', async () => {
      const json = await http_
        .get('/api/members')
        .set(bearer(token))
        .set('Accept', 'application/json; charset=utf-8')
        .expect(200);
      assert.match(json.headers['content-type'], /^application\/json/);
      for (const accept of [
        'text/csv; charset=utf-8',
        'text/csv; header=present',
        'application/json;q=0.5, text/csv; charset=utf-8',
      ])
        assert.match(
          (await http_.get('/api/events').set(bearer(token)).set('Accept', accept).expect(200)).headers['content-type'],
          /^text\/csv/,
          accept,
        );
      expectProblem(
        await http_.get('/api/members').set(bearer(token)).set('Accept', 'text/csv; charset=utf-8; q=0'),
        406,
        'not_acceptable',
      );
    });
  });

  describe('server-sent events on the JSON API', () => {
    it('when an operation answers text/event-stream, then events stream through the response validator and the idempotency layer', async () => {
      const server = await listen({ ...t, app });
      try {
        const stream = (key: string) =>
          new Promise<{ status: number; type: string; chunks: string[] }>((resolve, reject) => {
            const chunks: string[] = [];
            const req = http.request(
              {
                host: '127.0.0.1',
                port: server.port,
                method: 'POST',
                path: '/api/test/events',
                headers: { ...bearer(token), 'Idempotency-Key': key },
                agent: false,
              },
              (res) => {
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => {
                  chunks.push(chunk);
                  // the first event arrived while the handler still holds the second: nothing buffered it
                  if (chunks.length === 1) releaseSecondEvent();
                });
                res.on('end', () =>
                  resolve({ status: res.statusCode!, type: String(res.headers['content-type']), chunks }),
                );
              },
            );
            req.on('error', reject);
            req.end();
          });
        const key = `sse-${Date.now()}`;
        const first = await stream(key);
        assert.equal(first.status, 200);
        assert.match(first.type, /^text\/event-stream/);
        assert.equal(first.chunks[0], 'event: first\ndata: {"n":1}\n\n');
        assert.equal(first.chunks.join(''), 'event: first\ndata: {"n":1}\n\nevent: second\ndata: {"n":2}\n\n');
        // a stream cannot be replayed: its claim is released, so the same key streams again (no 409)
        const again = await stream(key);
        assert.equal(again.status, 200);
        assert.equal(again.chunks.join(''), first.chunks.join(''));
      } finally {
        await server.close();
      }
    });
  });
});
