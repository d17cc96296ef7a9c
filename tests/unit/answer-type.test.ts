// The answer type a question expects and whether a sentence holds one (src/modules/chat/answer-type.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectedAnswerType, holdsAnswerType } from '../../src/modules/chat/answer-type.ts';

describe('answer type', () => {
  it('when a question asks by how much a price changes, then a percentage answers it', () => {
    const question = 'By how much will membership fees increase from July 2026?';
    assert.equal(expectedAnswerType(question), 'money');
    assert.ok(holdsAnswerType('money', 'The board approved an increase of 3 percent in membership fees.', question));
    assert.ok(holdsAnswerType('money', 'Fees rise by 2.5% in July.', question));
  });

  it('when a question asks for a price, then a percentage alone does not answer it', () => {
    const question = 'How much is the late payment fee for membership dues?';
    assert.equal(expectedAnswerType(question), 'money');
    assert.ok(!holdsAnswerType('money', 'Dues rose by 3 percent last year.', question));
    assert.ok(holdsAnswerType('money', 'The late payment fee is £15.', question));
  });
});
