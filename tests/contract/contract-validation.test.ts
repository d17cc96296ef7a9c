// The contract checks themselves (express-openapi-validator, with the shared `paths` and `components`
// registered once per AJV instance: src/http/openapi.ts), on a bare Express app: a response that breaks
// the contract deep inside a referenced component is refused, and so is such a request body; what
// conforms passes. A wrong resolution of `#/components/...` would let these through or fail to compile.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express, { type NextFunction, type Request, type Response } from 'express';
import supertest from 'supertest';
import { contractPhases, loadContract } from '../../src/http/openapi.ts';

const MEMBER = {
  id: '8a7c6b2e-3f4d-4e5a-9b8c-1d2e3f4a5b6c',
  organizationId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.org',
  phone: null,
  tier: 'premium',
  membershipType: null,
  status: 'active',
  joinedAt: '2026-01-15',
  renewalDate: null,
  userId: null,
  customFields: {},
  createdAt: '2026-01-15T10:00:00.000Z',
  updatedAt: '2026-01-15T10:00:00.000Z',
};

/** An app answering the contract's member operations with `answer`, through the contract's two phases. */
function appAnswering(answer: (req: Request) => unknown) {
  const phases = contractPhases(loadContract(), true);
  const app = express();
  app.use(express.json());
  app.use(phases.findOperation, phases.validate);
  app.get('/api/members', (req, res) => void res.json(answer(req)));
  app.get('/api/members/:id', (req, res) => void res.json(answer(req)));
  app.post('/api/members', (req, res) => void res.status(201).json({ ...MEMBER, ...req.body }));
  app.use(
    (
      error: { status?: number; message: string; errors?: Array<{ path: string; message: string }> },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      // written with end(), not json(): the response validator checks what json() sends, and this
      // report of its verdict is not an answer of the operation
      res
        .status(error.status ?? 500)
        .type('application/json')
        .end(JSON.stringify({ message: error.message, errors: error.errors ?? [] }));
    },
  );
  return supertest(app);
}

describe('contract validation: references into the shared components resolve, requests and responses', () => {
  it('when a response conforms, then it passes; when an enum deep in a referenced component is broken, then the response is refused with a 500 naming the field', async () => {
    let body: unknown = MEMBER;
    const http = appAnswering(() => body);
    const ok = await http.get(`/api/members/${MEMBER.id}`).expect(200);
    assert.equal(ok.body.tier, 'premium');

    body = { ...MEMBER, tier: 'gold' }; // MemberTier is its own component, referenced from Member
    const refused = await http.get(`/api/members/${MEMBER.id}`).expect(500);
    assert.match(JSON.stringify(refused.body), /tier/);
    assert.match(JSON.stringify(refused.body), /allowed values|equal to one of/);
  });

  it('when a list item breaks Member inside the MemberList envelope, then the response is refused; a conforming page passes', async () => {
    const pagination = { page: 1, itemsPerPage: 30, totalItems: 1, totalPages: 1 };
    let body: unknown = { data: [MEMBER], pagination };
    const http = appAnswering(() => body);
    const page = await http.get('/api/members').expect(200);
    assert.equal(page.body.data.length, 1);

    body = { data: [{ ...MEMBER, status: 42 }], pagination };
    const refused = await http.get('/api/members').expect(500);
    assert.match(JSON.stringify(refused.body), /status/);

    body = { data: [MEMBER], pagination: { ...pagination, surprise: true } }; // Pagination: additionalProperties false
    await http.get('/api/members').expect(500);
  });

  it('when a request body breaks a referenced component, then it is a 400 naming the field; a conforming body reaches the route', async () => {
    const http = appAnswering(() => MEMBER);
    const created = await http
      .post('/api/members')
      .send({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org', tier: 'premium' })
      .expect(201);
    assert.equal(created.body.firstName, 'Grace');

    const refused = await http
      .post('/api/members')
      .send({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org', tier: 'gold' })
      .expect(400);
    assert.ok(
      refused.body.errors.some((error: { path: string }) => /tier/.test(error.path)),
      JSON.stringify(refused.body),
    );
  });
});
