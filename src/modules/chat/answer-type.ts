// The kind of answer a question expects, and whether a sentence holds one: question answering's oldest
// filter. "How much is the parking fee?" wants an amount, "when" a date or a condition, "who" a person
// or a body, "which hotel" or "where" a named place. A sentence without anything of that kind does not
// answer, however many of the question's words it shares.

export type AnswerType = 'money' | 'quantity' | 'time' | 'person' | 'place';

const NUMBER_WORDS =
  /\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|thousand|million|billion|half|once|twice|percent|free)\b/iu;
const DIGIT = /\d/u;
const MONTHS =
  /\b(january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|winter)\b/iu;
const PERIOD =
  /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fourteen|thirty|sixty)\s+(minutes?|hours?|days?|working days?|weeks?|months?|years?)\b|\b(every|each|daily|weekly|monthly|annually|yearly|quarterly)\b/iu;
const CONDITION = /\b(before|after|until|within|during|whenever|when|if|above|below|over|exceeds?|once|from|by)\b/iu;
const ROLE =
  /\b(chair|chairs|chaired|president|officer|committee|panel|board|trustees?|manager|coordinator|secretary|executive|director|treasurer|auditors?|team|firm|llp|ltd|inc|company|members?)\b/iu;
const CHANGE =
  /\bby how much\b|\b(increase|increases|increased|rise|rises|raise|raised|go up|goes up|grow|fall|drop|cut|reduced?|reduction|discount)\b/iu;
const PLACE = /\b(in|at|on|near)\s+(the\s+)?[A-Z][\p{L}-]+/u;

/** The answer type a question asks for; null when it asks for an explanation, a list or a yes/no. */
export function expectedAnswerType(question: string): AnswerType | null {
  const q = question.toLowerCase();
  if (
    /\b(how much|what|which)\b/u.test(q) &&
    /\b(cost|costs|price|fee|fees|pay|paid|spend|spent|budget|income|invested|surplus|salary|money|dues|charge)\b/u.test(
      q,
    )
  )
    return 'money';
  if (
    /\bhow (much|many|big|large|expensive)\b|\bwhat (share|proportion|percentage|number|price|fee|amount|budget)\b|\bwhat (does|do|did|will) .{0,40}\bcost\b/u.test(
      q,
    )
  )
    return 'quantity';
  if (/\b(when|what (date|day|year|time|month)|how (soon|often|long|quickly)|what interval|until what)\b/u.test(q))
    return 'time';
  if (
    /^\s*(who|whom)\b|\b(which|what) (trustee|person|firm|company|organisation|organization|auditor)\b|\bwhom\b/u.test(
      q,
    )
  )
    return 'person';
  if (
    /^\s*where\b|\b(which|what) (hotel|venue|city|country|town|room|building|place|address|location)\b|\bin (which|what) (city|country|town)\b/u.test(
      q,
    )
  )
    return 'place';
  return null;
}

/** Whether the sentence holds an answer of the type (always true for untyped questions). */
export function holdsAnswerType(type: AnswerType | null, sentence: string, question = ''): boolean {
  switch (type) {
    case null:
      return true;
    case 'money':
      return (
        /[£€$]|\b(pounds?|euros?|dollars?|free|gbp|eur|usd)\b|\d{1,3}(,\d{3})+|\d+(\.\d+)? ?(million|thousand|k)\b/iu.test(
          sentence,
        ) ||
        // a change in a price ("by how much will fees increase?") is often given as a share of it
        (CHANGE.test(question) && /\d+(\.\d+)? ?(%|per ?cent\b)/iu.test(sentence))
      );
    case 'quantity':
      return DIGIT.test(sentence) || NUMBER_WORDS.test(sentence);
    case 'time':
      return (
        MONTHS.test(sentence) ||
        PERIOD.test(sentence) ||
        /\b(1[89]|20)\d\d\b|\b\d{1,2}:\d\d\b/u.test(sentence) ||
        // "when must a harness be worn?" asks for a condition, not a date
        (/^\s*when\b/iu.test(question) && CONDITION.test(sentence))
      );
    case 'person':
      return ROLE.test(sentence) || /(?<!^)\b[A-Z][\p{Ll}]+\s+(?:[A-Z]\.\s+)?[A-Z][\p{Ll}]+/u.test(sentence);
    case 'place':
      return PLACE.test(sentence.slice(1));
  }
}

/** Words that name a kind of answer rather than a subject: the answer type stands for them. */
const GENERIC_FOCUS = new Set(
  'happens happen happened amount number share proportion percentage price cost fee fees date day year time month period deadline place city country town location person name people someone way thing kind type part result role limit much many long often soon'.split(
    ' ',
  ),
);
const SKIP = new Set(
  'is are was were does do did will would can could must should may the a an of it its this that these those there i my we our you your they their he she'.split(
    ' ',
  ),
);
const STOP_FOCUS = new Set(
  'of for at in on to from with by about if when who whom which what where how and or as than after before during under over per each every'.split(
    ' ',
  ),
);

/**
 * The subject words naming what the question asks about: "What is the parking fee at the boathouse?"
 * asks for a fee (the type) of parking (the focus); "Which hotel hosts…" for a hotel. A sentence that
 * never names the focus does not answer, whatever else it shares with the question.
 */
export function questionFocus(question: string): string[] {
  const words = question.toLowerCase().match(/[a-z0-9’']+/g) ?? [];
  const at = words.findIndex((word) => word === 'which' || word === 'what');
  if (at < 0) return [];
  const focus: string[] = [];
  for (const word of words.slice(at + 1)) {
    if (!focus.length && SKIP.has(word)) continue;
    if (STOP_FOCUS.has(word) || SKIP.has(word) || focus.length === 2) break;
    focus.push(word);
  }
  return focus.filter((word) => !GENERIC_FOCUS.has(word));
}
