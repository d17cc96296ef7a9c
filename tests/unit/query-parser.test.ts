import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { parseQuery as parse } from '../../src/http/query-parser.ts';

describe('parseQuery', () => {
  const app = express();
  app.set('query parser', 'extended');
  const extended = app.get('query parser fn') as (query: string) => Record<string, unknown>;

  it('when a query has no brackets, then the result equals the extended parser’s', () => {
    for (const query of [
      'page=2',
      'page=2&itemsPerPage=25',
      'status=a&status=b',
      'q=a+b%20c',
      'empty=',
      'flag',
      'q=%C3%A9t%C3%A9',
      '',
    ]) {
      assert.deepEqual(parse(query), extended(query), query);
    }
  });

  it('when a query has bracketed filters, plain or percent-encoded, then they become nested objects', () => {
    assert.deepEqual(parse('createdAt[after]=2026-01-01&order[lastName]=asc'), {
      createdAt: { after: '2026-01-01' },
      order: { lastName: 'asc' },
    });
    assert.deepEqual(parse('order%5BlastName%5D=desc'), { order: { lastName: 'desc' } });
    assert.deepEqual(parse('status[]=active&status[]=pending'), { status: ['active', 'pending'] });
  });

  it('when a bracketed list has up to 100 values, then it stays a list, as the repeated form does', () => {
    const values = Array.from({ length: 100 }, (_, i) => `v${i}`);
    assert.deepEqual(parse(values.map((v) => `status[]=${v}`).join('&')), { status: values });
    assert.deepEqual(parse(values.map((v) => `status=${v}`).join('&')), { status: values });
  });
});
