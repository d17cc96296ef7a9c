import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { Organization } from '../../src/modules/organizations/organization.model.ts';
import { errorCatalog } from '../../src/shared/errors.ts';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('errors are RFC 7807 problem+json', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    // test-only operations (contract fixture and routes) whose handlers fail as a service might
    const contract = loadContract();
    const failing = (operationId: string, status: string, response: string) => ({
      post: {
        operationId,
        responses: {
          [status]: { $ref: `#/components/responses/${response}` },
          '401': { $ref: '#/components/responses/Unauthorized' },
        },
      },
    });
    // a 404 declared too, so the response check does not turn a wrong 404 into the 500 expected
    const upstreamRefusal = failing('testUpstreamRefusal', '500', 'InternalError');
    Object.assign(upstreamRefusal.post.responses, { '404': { $ref: '#/components/responses/NotFound' } });
    Object.assign(contract.document.paths!, {
      '/api/test/upstream-refusal': upstreamRefusal,
      '/api/test/duplicate': failing('testDuplicate', '409', 'Conflict'),
      '/api/test/failure': failing('testFailure', '500', 'InternalError'),
    });
    t = await startTestApp({
      contract,
      routes: {
        api: [
          (router) => {
            router.post('/api/test/duplicate', async () => {
              await Organization.create({ name: 'Dup', slug: 'duplicate-slug' });
              await Organization.create({ name: 'Dup', slug: 'duplicate-slug' });
              throw new Error('unreachable');
            });
            router.post('/api/test/failure', async () => {
              throw new Error('connection string postgres://secret@db');
            });
            // an outside service refusing us (the Claude client's own error class: a model it does not know)
            router.post('/api/test/upstream-refusal', async () => {
              throw new Anthropic.NotFoundError(404, { type: 'error' }, 'model: claude-x', new Headers());
            });
          },
        ],
      },
    });
    token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' }));
  });
  after(() => t.close());

  it('when a path does not exist, then 404 route_not_found with instance and type', async () => {
    const body = expectProblem(await t.http.get('/api/nowhere?x=1'), 404, 'route_not_found');
    assert.equal(body.instance, '/api/nowhere');
    assert.equal(body.type, `${t.config.baseUrl}/errors/route_not_found`);
    expectProblem(await t.http.get('/definitely/not/here'), 404, 'route_not_found');
  });

  it('when the method is not supported, then 405 method_not_allowed', async () => {
    expectProblem(await t.http.delete('/api/auth/login'), 405, 'method_not_allowed');
    // a path with a GET lists HEAD too: every GET answers it
    const refused = await t.http.patch('/api/members/00000000-0000-4000-8000-000000000000').set(bearer(token));
    expectProblem(refused, 405, 'method_not_allowed');
    assert.deepEqual(refused.headers.allow?.split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PUT']);
  });

  it('when the body is not JSON, then 415 unsupported_media_type', async () => {
    const res = await t.http.post('/api/auth/login').set('Content-Type', 'text/plain').send('email=a&password=b');
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('when the body has no Content-Type, then 415 unsupported_media_type saying what to send', async () => {
    const res = await t.http.post('/api/auth/login').send(Buffer.from('{"email":"a@example.test","password":"b"}'));
    assert.equal(res.request.getHeader('Content-Type'), undefined);
    const body = expectProblem(res, 415, 'unsupported_media_type');
    assert.equal(body.detail, 'The request has no Content-Type; send application/json');
  });

  it('when the JSON is malformed, then 400 malformed_body', async () => {
    const res = await t.http.post('/api/auth/login').set('Content-Type', 'application/json').send('{"email": ');
    assert.equal(expectProblem(res, 400, 'malformed_body').detail, 'The request body is not valid JSON');
  });

  it('when the body does not decode as its Content-Encoding says, then 400 malformed_body on every JSON surface', async () => {
    const undecodable = { gzip: Buffer.from('garbage'), deflate: Buffer.from('garbage'), br: Buffer.from('garbage') };
    for (const [encoding, bytes] of Object.entries(undecodable))
      for (const path of ['/api/auth/login', '/webhooks/idp']) {
        const res = await t.http
          .post(path)
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .serialize((body) => body) // the bytes as they are (superagent writes a Buffer as JSON)
          .send(bytes);
        const problem = expectProblem(res, 400, 'malformed_body');
        assert.equal(
          problem.detail,
          'The request body is not encoded as its Content-Encoding says',
          `${encoding} ${path}`,
        );
      }
    // a body that decodes is read as any other
    const gzipped = gzipSync(JSON.stringify({ email: 'nobody@example.test', password: 'not-the-password' }));
    const login = await t.http
      .post('/api/auth/login')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((body) => body)
      .send(gzipped);
    expectProblem(login, 401, 'invalid_credentials');
  });

  it('when the body is valid JSON but not an object, then 400 malformed_body says so', async () => {
    for (const scalar of ['null', '123', '"str"', ' true', '[]', '[{"email": "a@example.test"}]']) {
      const res = await t.http.post('/api/auth/login').set('Content-Type', 'application/json').send(scalar);
      assert.equal(expectProblem(res, 400, 'malformed_body').detail, 'The request body must be a JSON object', scalar);
    }
  });

  it('when the body is larger than 1 MB, then 413 payload_too_large', async () => {
    const res = await t.http
      .post('/api/api-keys')
      .set(bearer(token))
      .send({ name: 'x'.repeat(1_100_000) });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('when a query parameter is unknown, then 400 naming it', async () => {
    const body = expectProblem(await t.http.get('/api/api-keys?colour=red').set(bearer(token)), 400, 'invalid_filter');
    assert.equal(body.errors[0].field, 'colour');
    assert.match(body.detail, /colour/);
  });

  it('when a path parameter is malformed, then 400 naming it', async () => {
    const body = expectProblem(
      await t.http.delete('/api/api-keys/not-a-uuid').set(bearer(token)),
      400,
      'validation_failed',
    );
    assert.equal(body.errors[0].field, 'id');
  });

  it('when the database refuses a duplicate, then 409 already_exists naming the field', async () => {
    const body = expectProblem(await t.http.post('/api/test/duplicate').set(bearer(token)), 409, 'already_exists');
    assert.equal(body.errors[0].field, 'slug');
  });

  it('when something unexpected fails, then 500 with a generic detail and no internals', async () => {
    const body = expectProblem(await t.http.post('/api/test/failure').set(bearer(token)), 500, 'internal_error');
    assert.doesNotMatch(JSON.stringify(body), /secret|postgres|stack/);
  });

  it("when an outside service refuses us with a status, then 500: its status is not the client's", async () => {
    const body = expectProblem(
      await t.http.post('/api/test/upstream-refusal').set(bearer(token)),
      500,
      'internal_error',
    );
    assert.doesNotMatch(JSON.stringify(body), /claude-x/);
  });

  it('when an error code is looked up, then /errors/<code> documents every code in the catalog', async () => {
    for (const [code, definition] of Object.entries(errorCatalog)) {
      const res = await t.http.get(`/errors/${code}`).expect(200);
      assert.match(res.text, new RegExp(definition.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.match(res.text, new RegExp(`HTTP status <strong>${definition.status}</strong>`));
    }
    await t.http.get('/errors/no_such_code').expect(404);
    const index = await t.http.get('/errors').expect(200);
    assert.match(index.text, /validation_failed/);
  });

  it('when the contract and docs are fetched, then they are served offline', async () => {
    const yaml = await t.http.get('/api/openapi.yaml').expect(200);
    assert.match(yaml.text, /^openapi: 3\.1\.0/);
    const json = await t.http.get('/api/openapi.json').expect(200);
    assert.equal(json.body.info.title, 'Guildhall API');
    const docs = await t.http.get('/api/docs').expect(200);
    assert.match(docs.text, /swagger-ui-bundle\.js/);
    const bundle = await t.http.get('/api/docs/assets/swagger-ui-bundle.js').expect(200);
    assert.ok(bundle.text.length > 100_000);
  });

  it('when an operation is deprecated in the contract, then it answers with Deprecation and Sunset headers', async () => {
    const contract = loadContract();
    const ready = contract.document.paths!['/ready']!.get! as Record<string, unknown>;
    Object.assign(ready, {
      deprecated: true,
      'x-sunset': '2027-06-30T00:00:00Z',
      'x-deprecated-at': '2026-12-01T00:00:00Z',
    });
    const app = createApp(t.container, { contract });
    const res = await supertest(app).get('/ready').expect(200);
    assert.equal(res.headers.deprecation, `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
    assert.equal(res.headers.sunset, 'Wed, 30 Jun 2027 00:00:00 GMT');
    const current = await t.http.get('/ready').expect(200);
    assert.equal(current.headers.deprecation, undefined);
  });
});
