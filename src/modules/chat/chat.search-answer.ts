// Search mode: the answer made of the sentences the judgement picked (chat.judgement.ts), its sources,
// "no answer" said plainly (with where the library comes closest), and follow-up suggestions.
import type { ChatSource } from './chat.repository.ts';
import type { Judgement } from './chat.judgement.ts';
import type { AnswerSink, UnrecordedAnswer } from './chat.types.ts';
import { composeAnswer, excerptOf } from './extractive-answer.ts';
import type { RetrievedPassage } from './passage-retrieval.repository.ts';

export const NO_ANSWER = 'The library has no answer to this question: none of the resources you can open covers it.';

/** Below this, the closest passage is too far off to be worth pointing at. */
const CLOSEST_FLOOR = 0.1;

export function answerBySearch(
  query: string,
  evidence: Judgement,
  sink: AnswerSink | undefined,
): Omit<UnrecordedAnswer, 'keywordOnly' | 'fallbackReason'> {
  const sentences = evidence.sentences;
  const answer = sentences.length ? composeAnswer(sentences) : NO_ANSWER;
  if (sink) for (const part of answer.split(/(?<=\s)/u)) sink.token(part);
  const seen = new Set<string>();
  const sources: ChatSource[] = [];
  for (const sentence of sentences) {
    if (seen.has(sentence.passage.id)) continue;
    seen.add(sentence.passage.id);
    sources.push(toSource(sentence.passage, sentence.text, evidence.furniture));
  }
  return {
    answer,
    sources,
    suggestedQuestions: suggestQuestions(query, evidence.relevant),
    confidence: evidence.confidence,
    mode: 'search',
  };
}

export function toSource(passage: RetrievedPassage, focus?: string, furniture?: ReadonlySet<string>): ChatSource {
  return {
    resourceId: passage.resourceId,
    resourceName: passage.resourceName,
    pageNumber: passage.pageNumber,
    excerpt: excerptOf(passage, focus, 300, furniture),
  };
}

/**
 * "No answer", said plainly; when something comes near, where it is, quoted as what it is (the closest
 * passage), not as the answer. It cites nothing: the sources list stays empty.
 */
export function noAnswer(evidence: Judgement): string {
  const lead = evidence.lead;
  if (!lead || evidence.confidence < CLOSEST_FLOOR) return NO_ANSWER;
  return `${NO_ANSWER} The closest it comes is "${lead.passage.resourceName}", page ${lead.passage.pageNumber}: "${lead.text}" This may not be what you asked.`;
}

/** Follow-ups the relevant passages can answer: their sections, and the resources they come from. */
export function suggestQuestions(query: string, passages: readonly RetrievedPassage[]): string[] {
  const suggestions: string[] = [];
  const asked = query.trim().toLowerCase();
  for (const passage of passages) {
    const heading = passage.headingPath
      ?.split(/\s*[>/»]\s*/u)
      .pop()
      ?.trim();
    const candidate = heading
      ? `What does "${passage.resourceName}" say about ${heading.toLowerCase()}?`
      : `What else does "${passage.resourceName}" cover?`;
    if (!suggestions.includes(candidate) && candidate.toLowerCase() !== asked) suggestions.push(candidate);
    if (suggestions.length === 3) break;
  }
  return suggestions;
}
