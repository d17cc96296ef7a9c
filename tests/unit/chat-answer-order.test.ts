// Which page a search-mode answer cites first: the retrieval's ranking decides, and neither the
// evidence ramp nor the sentence picker reorders it (src/modules/chat/chat.evidence.ts,
// extractive-answer.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assessEvidence } from '../../src/modules/chat/chat.evidence.ts';
import { pickSentences } from '../../src/modules/chat/extractive-answer.ts';
import type { RetrievedPassage } from '../../src/modules/chat/passage-retrieval.repository.ts';

const passage = (
  id: string,
  pageNumber: number,
  content: string,
  similarity: number,
  coverage: number,
  score: number,
): RetrievedPassage => ({
  id,
  resourceId: 'r1',
  resourceName: 'Site Safety Manual',
  pageNumber,
  locationKind: 'page',
  headingPath: null,
  content,
  keywordRank: coverage > 0 ? 1 : null,
  vectorRank: 1,
  similarity,
  coverage,
  score,
});

// as retrieval re-ranked them (0.7 similarity + 0.3 coverage): the weather page first, although the
// inspections page sits a little closer to the question by cosine alone
const weather = passage(
  'p5',
  5,
  'Lifting operations stop when wind speed exceeds 38 kilometres per hour or during lightning. The crane supervisor records each stoppage.',
  0.41,
  0.25,
  0.03,
);
const inspections = passage(
  'p1',
  1,
  'Every bridge site is inspected before work starts and then every week. The inspector signs the site register.',
  0.44,
  0,
  0.032,
);

describe('search-mode answers: the page cited first', () => {
  it('when a later passage has the higher similarity, then the relevant passages keep the retrieval order', () => {
    const evidence = assessEvidence({ passages: [weather, inspections], keywordOnly: false, queryTerms: 4 });
    assert.equal(evidence.answerable, true);
    assert.deepEqual(
      evidence.relevant.map((p) => p.pageNumber),
      [5, 1],
    );
  });

  it('when a sentence of another passage sits closer to the question, then the answer still leads with the best passage', async () => {
    const vectors: Record<string, number[]> = {
      question: [1, 0],
      // the inspections sentence is nearer the question than anything on the weather page
      'Every bridge site is inspected before work starts and then every week.': [1, 0],
      'The inspector signs the site register.': [0, 1],
      'Lifting operations stop when wind speed exceeds 38 kilometres per hour or during lightning.': [0.3, 0.7],
      'The crane supervisor records each stoppage.': [0.4, 0.6],
    };
    const sentences = await pickSentences([weather, inspections], {
      query: 'When is the crane halted because of storms and gusts?',
      queryVector: vectors.question,
      embed: async (texts) => texts.map((text) => vectors[text] ?? [0, 0]),
    });
    assert.equal(sentences[0]!.passage.pageNumber, 5);
    assert.match(sentences[0]!.text, /crane|wind/);
  });
});
