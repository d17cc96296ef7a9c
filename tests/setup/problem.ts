import assert from 'node:assert/strict';
import type { Response } from 'supertest';

/** Asserts an RFC 7807 problem with the given status and code, and returns its body. */
export function expectProblem(res: Response, status: number, code: string): Record<string, any> {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
  const body = res.body as Record<string, any>;
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.match(body.type, new RegExp(`/errors/${code}$`));
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.equal(body.requestId, res.headers['x-request-id']);
  return body;
}
