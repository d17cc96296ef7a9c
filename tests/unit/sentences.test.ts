// The one sentence splitter (src/shared/sentences.ts): Unicode sentence boundaries through
// Intl.Segmenter, with titles and short forms that do not end a sentence.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitSentences } from '../../src/shared/sentences.ts';

describe('sentences', () => {
  it('when a text has several sentences, then each is returned trimmed, in order', () => {
    assert.deepEqual(splitSentences('  Dues are £95 a year.  Students pay £40!   Is it monthly? '), [
      'Dues are £95 a year.',
      'Students pay £40!',
      'Is it monthly?',
    ]);
    assert.deepEqual(splitSentences(''), []);
  });

  it('when a title or a short form ends with a full stop, then the sentence runs on', () => {
    assert.deepEqual(splitSentences('Hello there. Dr. Smith agrees, e.g. with Mrs. Jones. Done.'), [
      'Hello there.',
      'Dr. Smith agrees, e.g. with Mrs. Jones.',
      'Done.',
    ]);
    assert.deepEqual(splitSentences('The office is at No. 4 Bridge Street. The answer was No. Then we left.'), [
      'The office is at No. 4 Bridge Street.',
      'The answer was No.',
      'Then we left.',
    ]);
  });

  it('when a figure has a decimal point or a quote closes the sentence, then nothing is cut inside it', () => {
    assert.deepEqual(splitSentences('Income rose 2.5 per cent to £1.2 million. "We grew," she said. Next.'), [
      'Income rose 2.5 per cent to £1.2 million.',
      '"We grew," she said.',
      'Next.',
    ]);
  });

  it('when a line ends, then the sentence ends there', () => {
    assert.deepEqual(splitSentences('Chair: Helen Marsh\nTerm ends 2027'), ['Chair: Helen Marsh', 'Term ends 2027']);
  });
});
