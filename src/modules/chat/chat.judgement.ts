// The chat's judgement of the retrieved passages, in both modes: the candidate sentences of the best
// passages are scored (the question's specific words by their weight in the library, the answer type
// it expects, the sentence's vector), and the lead sentence's features give the confidence through the
// fitted model (chat.evidence.ts), which decides whether the chat answers.
import type { Embedder } from '../../integrations/embeddings/embedder.ts';
import type { LibraryReader } from '../library/index.ts';
import {
  answerConfidence,
  answerThreshold,
  passageEvidence,
  type AnswerFeatures,
  type Evidence,
} from './chat.evidence.ts';
import { extendLead, questionTerms, scoreSentences, type ScoredSentence } from './extractive-answer.ts';
import type { PassageRetrieval, RetrievalResult } from './passage-retrieval.repository.ts';

/** The chat's judgement of the retrieved passages: whether to answer, with what, and how sure. */
export interface Judgement extends Evidence {
  /** The best passage's retrieval evidence (chat.evidence.ts ramps): whether anything relevant came back. */
  passageSupport: number;
  sentences: ScoredSentence[];
  lead: ScoredSentence | undefined;
  features: AnswerFeatures | null;
  furniture: ReadonlySet<string>;
}

/** Passages whose sentences compete for the answer's lead. */
const CANDIDATE_PASSAGES = 4;

export async function judge(
  deps: { retrieval: PassageRetrieval; embedder: Embedder },
  reader: LibraryReader,
  query: string,
  retrieved: RetrievalResult,
  queryVector: number[] | null,
): Promise<Judgement> {
  const passages = retrieved.passages.slice(0, CANDIDATE_PASSAGES);
  const [termWeights, furniture] = await Promise.all([
    deps.retrieval.termWeights(reader, questionTerms(query)),
    deps.retrieval.repeatedLines(passages.map((passage) => passage.resourceId)),
  ]);
  const { candidates, lead } = await scoreSentences(passages, {
    query,
    queryVector,
    embed: queryVector ? (texts) => deps.embedder.embed(texts) : undefined,
    termWeights,
    furniture,
    passages: CANDIDATE_PASSAGES,
  });
  if (!lead)
    return {
      confidence: 0,
      answerable: false,
      passageSupport: 0,
      relevant: [],
      sentences: [],
      lead,
      features: null,
      furniture,
    };
  const features: AnswerFeatures = {
    ...lead.features,
    passageSimilarity: lead.passage.similarity,
    passageCoverage: lead.passage.coverage,
  };
  const confidence = answerConfidence(features, retrieved.keywordOnly);
  const answerable = confidence >= answerThreshold(retrieved.keywordOnly);
  // what a model may draw on: the lead's passage first, then those about as well supported
  const scored = retrieved.passages.map((passage) => ({
    passage,
    evidence: passageEvidence(passage, retrieved.queryTerms),
  }));
  const best = scored.reduce((top, item) => Math.max(top, item.evidence), 0);
  const relevant = [
    lead.passage,
    ...scored
      .filter((item) => item.passage !== lead.passage && item.evidence >= best * 0.6)
      .map((item) => item.passage),
  ];
  return {
    confidence,
    answerable,
    passageSupport: best,
    relevant,
    sentences: extendLead(lead, candidates),
    lead,
    features,
    furniture,
  };
}
