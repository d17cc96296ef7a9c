import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvField, neutralise } from '../../src/modules/users/user-export.ts';
import { parseDateRange } from '../../src/shared/date-range.ts';
import { AppError } from '../../src/shared/errors.ts';
import { containing } from '../../src/shared/sql.ts';

describe('CSV cells, date ranges and LIKE patterns', () => {
  it('when a cell starts with a formula character, then it is prefixed with an apostrophe; otherwise untouched', () => {
    for (const risky of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx']) assert.equal(neutralise(risky), `'${risky}`);
    for (const safe of ['Ada', 'a=b', '', "'quoted", '1-2']) assert.equal(neutralise(safe), safe);
  });

  it('when a field holds a comma, quote or line break, then it is quoted with quotes doubled (RFC 4180)', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\r'), '"cr\r"');
  });

  it('when a range has bare dates, then they cover whole UTC days; bad or inverted ranges are refused', () => {
    assert.deepEqual(parseDateRange({ after: '2026-01-01', before: '2026-01-31' }, 'createdAt'), {
      from: new Date('2026-01-01T00:00:00.000Z'),
      to: new Date('2026-01-31T23:59:59.999Z'),
    });
    assert.deepEqual(parseDateRange({ after: '2026-01-01T10:00:00+02:00' }, 'createdAt'), {
      from: new Date('2026-01-01T08:00:00.000Z'),
    });
    assert.equal(parseDateRange({}, 'createdAt'), undefined);
    assert.throws(
      () => parseDateRange({ after: '2026-02-01', before: '2026-01-01' }, 'createdAt'),
      (e: unknown) => e instanceof AppError && e.code === 'invalid_filter',
    );
    assert.throws(
      () => parseDateRange({ after: '2026-13-45' }, 'createdAt'),
      (e: unknown) => e instanceof AppError && e.code === 'invalid_filter',
    );
  });

  it('when user input has LIKE wildcards, then they match literally', () => {
    assert.equal(containing('50%_off\\'), '%50\\%\\_off\\\\%');
  });
});
