import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { integerToWords, normalizeForSpeech, splitSentences } from '../../src/integrations/speech/speech-text.ts';

describe('text prepared for speech', () => {
  it('when numbers are spelled out, then they read as words', () => {
    assert.equal(integerToWords(0), 'zero');
    assert.equal(integerToWords(42), 'forty-two');
    assert.equal(integerToWords(1250), 'one thousand two hundred fifty');
    assert.equal(integerToWords(3_000_015), 'three million fifteen');
  });

  it('when a sentence has currency, percentages, years, ordinals and symbols, then each becomes words', () => {
    assert.equal(
      normalizeForSpeech('Renewals reached 42% in 2024.'),
      'Renewals reached forty-two percent in twenty twenty-four.',
    );
    assert.equal(
      normalizeForSpeech('Revenue was $1.2 million, up from $950,000.'),
      'Revenue was one point two million dollars, up from nine hundred fifty thousand dollars.',
    );
    assert.equal(
      normalizeForSpeech('Tickets cost $12.50 or £8.'),
      'Tickets cost twelve dollars and fifty cents or eight pounds.',
    );
    assert.equal(
      normalizeForSpeech('The 3rd phase runs 2019–2023 & costs €3.4bn.'),
      'The third phase runs twenty nineteen to twenty twenty-three and costs three point four billion euros.',
    );
    assert.equal(
      normalizeForSpeech('“Smart” quotes — and the 1990s, e.g. now.'),
      'Smart quotes, and the nineteen nineties, for example, now.',
    );
    assert.equal(
      normalizeForSpeech('It’s 24/7 <always> #1 ~ 5 km.'),
      "It's twenty-four or seven less than always more than number one about five km.",
    );
  });

  it('when text is long, then it is cut into sentences of at most thirty words', () => {
    assert.deepEqual(splitSentences('Hello there. Dr. Smith agrees! Does it work?'), [
      'Hello there.',
      'Dr. Smith agrees!',
      'Does it work?',
    ]);
    const long = `${'word '.repeat(70)}end.`;
    const pieces = splitSentences(long);
    assert.ok(pieces.length >= 3);
    for (const piece of pieces) assert.ok(piece.split(' ').length <= 30);
    assert.equal(pieces.join(' '), long.replace(/\s+/g, ' ').trim());
  });
});
