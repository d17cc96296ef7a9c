import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../src/http/idempotency.ts';

describe('idempotency fingerprint', () => {
  it('when two bodies differ only in key order, then they are the same request', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 1 }], c: null } }),
      canonicalJson({ a: { c: null, d: [1, { e: 1, f: 2 }] }, b: 1 }),
    );
    assert.equal(canonicalJson({ a: 1, skipped: undefined }), '{"a":1}');
  });

  it('when values differ, then the requests differ', () => {
    assert.notEqual(canonicalJson({ a: 1 }), canonicalJson({ a: '1' }));
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
    assert.equal(canonicalJson(undefined), 'null');
  });
});
