// How much the retrieved passages support an answer, as a calibrated confidence 0..1, in both modes.
//
// Two signals per passage: `coverage` (share of the question's content words the passage contains,
// from the full-text side) and `similarity` (cosine to the question, from the vector side; absent in
// keyword-only mode). Each is mapped through a ramp measured on the evaluation set (scripts/eval.ts):
// below the floor an unrelated passage scores that high too, above the ceiling only answering ones do.
// The best passage's evidence is the confidence; passages within reach of it are the relevant ones the
// answer may draw on. Below ANSWERABLE the chat says the library has no answer (and cites nothing).
import type { SentenceFeatures } from './extractive-answer.ts';
import type { RetrievedPassage, RetrievalResult } from './passage-retrieval.repository.ts';

/** Confidence at or above which the chat answers; below it, it says the library has no answer. */
export const ANSWERABLE = 0.4;
/** Answers below this (or rated unhelpful) are content gaps. Kept equal to the gaps index predicate. */
export const LOW_CONFIDENCE = 0.5;

// measured with use-lite-512 on the evaluation set: unrelated questions reach a cosine of 0.39 at most,
// answered paraphrases 0.40 to 0.60
const SIMILARITY = { floor: 0.26, ceiling: 0.61 };
const COVERAGE = { floor: 0.34, ceiling: 1 };
// keyword-only: coverage is the only signal; half the question's content words on one page is the
// least that answered questions of the set reached, unrelated ones stayed at 0.4 or below
const KEYWORD_ONLY_COVERAGE = { floor: 0.25, ceiling: 0.75 };

const ramp = (value: number, { floor, ceiling }: { floor: number; ceiling: number }) =>
  Math.min(1, Math.max(0, (value - floor) / (ceiling - floor)));

export interface Evidence {
  confidence: number;
  answerable: boolean;
  /**
   * The passages an answer may rest on, in the retrieval's order (empty when not answerable). That
   * order (fused, then re-ranked by similarity and word coverage) is the one ranking: re-sorting here
   * by evidence, which leans on similarity alone, cited another page than the one retrieval put first
   * for 2 of the 14 paraphrased questions of the evaluation set (scripts/eval.ts).
   */
  relevant: RetrievedPassage[];
}

export function passageEvidence(passage: RetrievedPassage, queryTerms: number): number {
  // one matching word of a one-word question is weaker evidence than it looks
  const coverage = queryTerms <= 1 ? passage.coverage * 0.75 : passage.coverage;
  if (passage.similarity === null) return ramp(coverage, KEYWORD_ONLY_COVERAGE);
  const lexical = ramp(coverage, COVERAGE);
  const semantic = ramp(passage.similarity, SIMILARITY);
  // either signal alone can carry a passage (paraphrases share no words; exact terms can embed far),
  // and agreement between them raises it
  return Math.min(1, Math.max(semantic, lexical * 0.85) + 0.15 * Math.min(semantic, lexical));
}

export function assessEvidence(result: RetrievalResult): Evidence {
  const scored = result.passages.map((passage) => ({ passage, evidence: passageEvidence(passage, result.queryTerms) }));
  const best = scored.reduce((top, item) => Math.max(top, item.evidence), 0);
  const confidence = Math.round(best * 1000) / 1000;
  if (confidence < ANSWERABLE) return { confidence, answerable: false, relevant: [] };
  const relevant = scored
    .filter((item) => item.evidence >= Math.max(ANSWERABLE, best * 0.6))
    .map((item) => item.passage);
  return { confidence, answerable: true, relevant };
}

/** What the confidence of an answer rests on: its lead sentence and that sentence's passage. */
export interface AnswerFeatures extends SentenceFeatures {
  /** The passage's cosine to the question (null in keyword-only mode). */
  passageSimilarity: number | null;
  /** The passage's share of the question's content words (full-text side). */
  passageCoverage: number;
}

/** The features as the model reads them, in the order of its weights. */
export function featureVector(f: AnswerFeatures, keywordOnly: boolean): number[] {
  const lexical = [
    f.passageCoverage,
    f.termCoverage,
    f.missingTerm,
    f.typeMatch,
    f.focusMissing,
    f.termCoverage * f.typeMatch,
  ];
  return keywordOnly ? lexical : [f.passageSimilarity ?? 0, f.similarity, ...lexical];
}

export interface LogisticModel {
  bias: number;
  weights: readonly number[];
  /** The chat answers at or above this confidence, and says the library has no answer below it. */
  threshold?: number;
  /**
   * Isotonic recalibration of the regression's probability: points (probability, observed share of
   * right pages), increasing, interpolated linearly between them and held flat beyond them.
   */
  calibration?: ReadonlyArray<readonly [number, number]>;
}

function interpolate(points: ReadonlyArray<readonly [number, number]>, x: number): number {
  if (!points.length) return x;
  if (x <= points[0]![0]) return points[0]![1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i]!;
    const [x0, y0] = points[i - 1]!;
    if (x <= x1) return x1 === x0 ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return points.at(-1)![1];
}

/**
 * Logistic regressions giving the probability that the lead sentence's page answers the question,
 * fitted by `npm run eval -- --fit` on the development half of the evaluation set only (scripts/eval.ts
 * prints them); the test half measures them.
 */
export const ANSWER_MODELS: { hybrid: LogisticModel; keywordOnly: LogisticModel } = {
  // calibration: isotonic over out-of-fold probabilities (each development document's questions scored
  // by a regression fitted without that document); thresholds: the lowest at which the development
  // half abstains on 0.9 of its unanswerable questions, on-topic and off-topic each
  hybrid: {
    bias: -1.73,
    weights: [1.09, 1.08, 0.21, 0.7, -0.76, -0.01, -0.65, 1.45],
    calibration: [
      [0.11, 0.26],
      [0.17, 0.21],
      [0.24, 0.29],
      [0.29, 0.31],
      [0.48, 0.34],
      [0.75, 0.7],
      [0.86, 0.98],
    ],
    threshold: 0.54,
  },
  keywordOnly: {
    bias: -2.85,
    weights: [0.73, 1.49, -1.4, 0.89, -0.63, 2.03],
    calibration: [
      [0.04, 0.02],
      [0.13, 0.11],
      [0.34, 0.28],
      [0.73, 0.6],
      [0.89, 0.98],
    ],
    threshold: 0.52,
  },
};

/** The confidence at or above which an answer is given, per mode. */
export const answerThreshold = (keywordOnly: boolean, models = ANSWER_MODELS): number =>
  (keywordOnly ? models.keywordOnly : models.hybrid).threshold ?? ANSWERABLE;

/** The confidence of an answer: the fitted model's probability, 0..1, rounded to 3 decimals. */
export function answerConfidence(f: AnswerFeatures, keywordOnly: boolean, models = ANSWER_MODELS): number {
  const model = keywordOnly ? models.keywordOnly : models.hybrid;
  const z = featureVector(f, keywordOnly).reduce((sum, x, i) => sum + x * (model.weights[i] ?? 0), model.bias);
  const p = 1 / (1 + Math.exp(-z));
  return Math.round((model.calibration ? interpolate(model.calibration, p) : p) * 1000) / 1000;
}
