// With response validation on (tests), a body that drifts from the contract is a 500 problem+json at
// once. The validator reports it through a `next` the request had long moved past; without
// http/openapi.ts's reportingLateErrors the request hung until the client gave up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('a response that drifts from the contract', () => {
  let t: TestApp;
  let http: ReturnType<typeof supertest>;

  before(async () => {
    t = await startTestApp();
    const contract = loadContract();
    contract.document.paths!['/api/test/drift'] = {
      get: {
        operationId: 'testDrift',
        security: [],
        responses: {
          '200': {
            description: 'Strict',
            content: {
              'application/json': {
                schema: { type: 'object', additionalProperties: false, properties: { ok: { type: 'boolean' } } },
              },
            },
          },
          '500': { $ref: '#/components/responses/InternalError' },
        },
      },
    } as never;
    const app = createApp(t.container, {
      contract,
      routes: {
        api: [(router) => router.get('/api/test/drift', (_req, res) => void res.json({ ok: true, extra: 1 }))],
      },
    });
    http = supertest(app);
  });
  after(() => t.close());

  it('when a route answers a field the contract does not have, then the client gets a 500 problem, not a hang', async () => {
    // a hang fails here (the first request also compiles the validator: seconds under load)
    const res = await http.get('/api/test/drift').timeout(60_000);
    expectProblem(res, 500, 'internal_error');
    assert.equal(res.body.detail, 'An unexpected error occurred', 'nothing of the drift is shown to the client');
  });
});
