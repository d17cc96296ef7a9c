// Headings on a line of their own are kept apart from the sentence under them (the extractive answer
// and the document digest cut text into sentences); wrapped lines of running text still join.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textBlocks } from '../../src/integrations/documents/text-blocks.ts';
import { excerptOf, splitSentences } from '../../src/modules/chat/extractive-answer.ts';
import type { RetrievedPassage } from '../../src/modules/chat/passage-retrieval.repository.ts';

const PAGE =
  'Site inspections\nEvery bridge site is inspected before work starts and then every week. The inspector checks\nscaffolding, harness anchor points and the condition of temporary barriers, and signs the\nsite register.\nWorking at height\nAnyone working more than two metres above the ground must wear a full body harness\nclipped to an approved anchor.';

describe('text blocks', () => {
  it('when a PDF page has headings over wrapped paragraphs, then each heading stands alone and each paragraph is one block', () => {
    assert.deepEqual(textBlocks(PAGE), [
      { text: 'Site inspections', standalone: true },
      {
        text: 'Every bridge site is inspected before work starts and then every week. The inspector checks scaffolding, harness anchor points and the condition of temporary barriers, and signs the site register.',
        standalone: false,
      },
      { text: 'Working at height', standalone: true },
      {
        text: 'Anyone working more than two metres above the ground must wear a full body harness clipped to an approved anchor.',
        standalone: false,
      },
    ]);
  });

  it('when a narrow line wraps before a capital, or a short line continues a sentence, then it stays running text', () => {
    assert.deepEqual(textBlocks('The final report goes to the\nBoard of Directors within six weeks.'), [
      { text: 'The final report goes to the Board of Directors within six weeks.', standalone: false },
    ]);
    assert.deepEqual(textBlocks('Dues are invoiced every January and payable within\n45 days of the invoice date.'), [
      { text: 'Dues are invoiced every January and payable within 45 days of the invoice date.', standalone: false },
    ]);
  });

  it('when the extractive answer cuts a page into sentences, then a short heading is no sentence and does not lead the next one', () => {
    assert.deepEqual(splitSentences(PAGE), [
      'Every bridge site is inspected before work starts and then every week.',
      'The inspector checks scaffolding, harness anchor points and the condition of temporary barriers, and signs the site register.',
      'Anyone working more than two metres above the ground must wear a full body harness clipped to an approved anchor.',
    ]);
  });

  it('when a source excerpt quotes a PDF page, then its headings read as headings, with a colon', () => {
    const passage = { content: PAGE, headingPath: null } as RetrievedPassage;
    assert.equal(
      excerptOf(passage, undefined, 1000),
      'Site inspections: Every bridge site is inspected before work starts and then every week. The inspector checks scaffolding, harness anchor points and the condition of temporary barriers, and signs the site register. Working at height: Anyone working more than two metres above the ground must wear a full body harness clipped to an approved anchor.',
    );
    assert.equal(
      excerptOf({ content: 'Plain text without a heading.', headingPath: 'Guide > Dues' } as RetrievedPassage),
      'Guide > Dues: Plain text without a heading.',
    );
  });
});
