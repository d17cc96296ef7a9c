// The chat's evaluation set: the demo library's documents (seeders/demo-library.documents.ts) and eight
// documents of other kinds made as real files (scripts/eval-documents.ts); questions with the page that
// answers each (asked once with the page's own words and once paraphrased, without them), questions on a
// document's subject it does not answer, and questions off every subject. Split by document into a
// development half (thresholds are fitted there) and a test half. Used by scripts/eval.ts (`npm run eval`).
import { demoLibraryDocuments, type DemoDocument } from '../seeders/demo-library.documents.ts';
import { evalFiles } from './eval-documents.ts';

export { evalFiles };

export type EvalDocument = Pick<DemoDocument, 'name' | 'pages'>;

export interface EvalQuestion {
  question: string;
  /** The answering document and page; absent for unanswerable questions. */
  expect?: { document: string; page: number };
  /** unanswerable: on a document's subject, without the detail asked; off-topic: on none of them. */
  kind: 'direct' | 'paraphrased' | 'unanswerable' | 'off-topic';
  /** Split by document: thresholds are fitted on `dev` only, `test` is held back. */
  split: 'dev' | 'test';
  /** The document the question is about (none for off-topic ones). */
  document?: string;
}

/** The two questions one page answers, in the order of the document's pages. */
interface PageQuestions {
  direct: string;
  paraphrased: string;
}

const handbook: PageQuestions[] = [
  {
    direct: 'How much are the annual membership dues for students?',
    paraphrased: 'What does it cost to join each year if I am still at university?',
  },
  {
    direct: 'When does registration for the annual conference open?',
    paraphrased: 'From which month can I sign up for the yearly convention?',
  },
  {
    direct: 'How many hours of continuing education must chartered members complete?',
    paraphrased: 'How much ongoing training do I need to keep my professional title?',
  },
  {
    direct: 'How do I file an ethics complaint with the professional conduct panel?',
    paraphrased: 'Where do I report a colleague who behaved dishonestly?',
  },
  {
    direct: 'How many nominations does a candidate for the board election need?',
    paraphrased: 'What support must I gather to stand for the governing council?',
  },
];

const safety: PageQuestions[] = [
  {
    direct: 'How often is a bridge site inspected once work has started?',
    paraphrased: 'At what interval does someone come to check the construction area?',
  },
  {
    direct: 'When must a full body harness be worn on site?',
    paraphrased: 'What fall protection is required when I am up high?',
  },
  {
    direct: 'Within how many hours are serious injuries reported to the national regulator?',
    paraphrased: 'How quickly must the government be told when a worker gets badly hurt?',
  },
  {
    direct: 'Above how many decibels is hearing protection mandatory?',
    paraphrased: 'When do I need ear defenders because the machines are too loud?',
  },
  {
    direct: 'At what wind speed do lifting operations stop?',
    paraphrased: 'When is the crane halted because of storms and gusts?',
  },
];

const grants: PageQuestions[] = [
  {
    direct: 'What is the maximum research grant for bridge durability projects?',
    paraphrased: 'How much money can the fund give to a study on how long structures last?',
  },
  {
    direct: 'What do applicants for a student scholarship submit?',
    paraphrased: 'Which documents should an undergraduate send to get financial aid?',
  },
  {
    direct: 'What do travel bursaries cover for members presenting a paper abroad?',
    paraphrased: 'Will the guild pay for my flights when I speak at a foreign event?',
  },
  {
    direct: 'When must grant holders send their final report?',
    paraphrased: 'What is the deadline for telling the funder how the project went?',
  },
];

/** The demo library's guides; they are the development half (the ramps were first fitted on them). */
export const evalDocuments: EvalDocument[] = demoLibraryDocuments.map(({ name, pages }) => ({ name, pages }));

/** Questions on each demo guide's subject that it does not answer. */
const demoUnanswerable: Record<string, string[]> = {
  'Member Handbook': [
    'Which hotel hosts the annual conference?',
    'How much is the late payment fee for membership dues?',
    'Who is the chair of the professional conduct panel?',
  ],
  'Site Safety Manual': [
    'What is the parking fee at the bridge site?',
    'Which company supplies the harnesses?',
    'How many injuries were reported on bridge sites last year?',
  ],
  'Grants and Bursaries Guide': [
    'How many scholarships were awarded last year?',
    'Which airline must travel bursary holders fly with?',
    'What is the interest rate on grant repayments?',
  ],
};

/** Off the library's subjects altogether: half asked in each half of the set. */
const offTopic = [
  'What is the best recipe for sourdough bread with rye flour?',
  'Who won the football world cup in 1998?',
  'How do I change the oil in a diesel car engine?',
  'What is the capital city of Australia?',
  'Which vaccines does my dog need before travelling?',
  'How do I book a parking space at the guild office?',
  'What is the dress code for the gala dinner?',
  'Can I bring my children to the library reading room?',
  'How do I reset my online banking password?',
  'What time does the swimming pool open on Sundays?',
  'How long should I boil an egg?',
  'What is the tallest mountain in Africa?',
  'How do I repot an orchid?',
  'Which planets have rings?',
  'What is the best way to learn to play the violin?',
  'How many calories are in a banana?',
  'Who painted the Mona Lisa?',
  'How do I remove a red wine stain from a carpet?',
  'When does the summer sale start at the shopping centre?',
  'What is the speed limit on German motorways?',
];

const demoQuestions: EvalQuestion[] = [
  ['Member Handbook', handbook],
  ['Site Safety Manual', safety],
  ['Grants and Bursaries Guide', grants],
].flatMap(([document, topics]) => [
  ...(topics as PageQuestions[]).flatMap((topic, i) => [
    {
      question: topic.direct,
      expect: { document: document as string, page: i + 1 },
      kind: 'direct' as const,
      split: 'dev' as const,
      document: document as string,
    },
    {
      question: topic.paraphrased,
      expect: { document: document as string, page: i + 1 },
      kind: 'paraphrased' as const,
      split: 'dev' as const,
      document: document as string,
    },
  ]),
  ...demoUnanswerable[document as string]!.map((question) => ({
    question,
    kind: 'unanswerable' as const,
    split: 'dev' as const,
    document: document as string,
  })),
]);

const fileQuestions: EvalQuestion[] = evalFiles.flatMap((file) => [
  ...file.questions.flatMap((q) => [
    {
      question: q.direct,
      expect: { document: file.name, page: q.page },
      kind: 'direct' as const,
      split: file.split,
      document: file.name,
    },
    {
      question: q.paraphrased,
      expect: { document: file.name, page: q.page },
      kind: 'paraphrased' as const,
      split: file.split,
      document: file.name,
    },
  ]),
  ...file.unanswerable.map((question) => ({
    question,
    kind: 'unanswerable' as const,
    split: file.split,
    document: file.name,
  })),
]);

export const evalQuestions: EvalQuestion[] = [
  ...demoQuestions,
  ...fileQuestions,
  ...offTopic.map((question, i) => ({
    question,
    kind: 'off-topic' as const,
    split: i % 2 === 0 ? ('dev' as const) : ('test' as const),
  })),
];
