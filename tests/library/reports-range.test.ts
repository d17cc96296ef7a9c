// Pure logic of the report ranges: defaults, bounds, and the split between rollup and raw events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDayRange } from '../../src/modules/resource-reports/report-range.ts';
import { splitRange } from '../../src/modules/resource-reports/usage-source.ts';
import { AppError } from '../../src/shared/errors.ts';

const now = new Date('2026-06-15T23:59:59Z');

describe('report ranges', () => {
  it('when no bound is given, then the 30 UTC days ending today; one bound moves the other default with it', () => {
    assert.deepEqual(parseDayRange({}, now, 'query'), { from: '2026-05-17', to: '2026-06-15' });
    assert.deepEqual(parseDayRange({ to: '2026-03-01' }, now, 'query'), { from: '2026-01-31', to: '2026-03-01' });
    assert.deepEqual(parseDayRange({ from: '2026-06-01' }, now, 'query'), { from: '2026-06-01', to: '2026-06-15' });
  });

  it('when the range is reversed, longer than 731 days or names no calendar day, then a validation error naming the field', () => {
    for (const [input, field] of [
      [{ from: '2026-06-02', to: '2026-06-01' }, 'from'],
      [{ from: '2024-06-01', to: '2026-06-15' }, 'to'],
      [{ from: '2026-02-30' }, 'from'],
    ] as const) {
      assert.throws(
        () => parseDayRange(input, now, 'body'),
        (error: unknown) =>
          error instanceof AppError &&
          error.code === 'validation_failed' &&
          JSON.stringify(error.extras).includes(field),
      );
    }
    assert.deepEqual(
      parseDayRange({ from: '2024-06-15', to: '2026-06-15' }, now, 'query'),
      { from: '2024-06-15', to: '2026-06-15' },
      '731 days is allowed',
    );
  });

  it('when the rollup covers part of the range, then its days come from the rollup and the rest from the raw events, each day once', () => {
    const range = { from: '2026-06-10', to: '2026-06-15' };
    assert.deepEqual(splitRange(range, null), { rollup: null, raw: range });
    assert.deepEqual(splitRange(range, '2026-06-14'), {
      rollup: { from: '2026-06-10', to: '2026-06-14' },
      raw: { from: '2026-06-15', to: '2026-06-15' },
    });
    assert.deepEqual(splitRange(range, '2026-06-20'), { rollup: range, raw: null });
    assert.deepEqual(splitRange(range, '2026-06-01'), { rollup: null, raw: range });
    assert.deepEqual(splitRange(range, '2026-06-09'), { rollup: null, raw: range });
  });
});
