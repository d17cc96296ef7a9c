// The chat's evaluation set: documents whose text is generated here, questions with the page that
// answers each (asked once with the page's own words and once paraphrased, without them), and
// questions the documents cannot answer. Used by scripts/eval.ts (`npm run eval`).

export interface EvalDocument {
  name: string;
  pages: Array<{ heading: string; text: string }>;
}

export interface EvalQuestion {
  question: string;
  /** The answering document and page; absent for unanswerable questions. */
  expect?: { document: string; page: number };
  kind: 'direct' | 'paraphrased' | 'unanswerable';
}

interface Topic {
  heading: string;
  text: string;
  direct: string;
  paraphrased: string;
}

const handbook: Topic[] = [
  {
    heading: 'Membership dues',
    text: 'Annual membership dues are 180 dollars for full members and 60 dollars for students. Dues are invoiced every January and payable within 45 days. Members who cancel within 30 days of renewal receive a full refund.',
    direct: 'How much are the annual membership dues for students?',
    paraphrased: 'What does it cost to join each year if I am still at university?',
  },
  {
    heading: 'Annual conference',
    text: 'The annual conference takes place every October in Lisbon. Registration opens on the first of June, and members receive a 40 percent discount on the conference fee. Speakers are chosen by the programme committee.',
    direct: 'When does registration for the annual conference open?',
    paraphrased: 'From which month can I sign up for the yearly convention?',
  },
  {
    heading: 'Continuing education',
    text: 'Chartered members must complete 24 hours of continuing education every two years. Webinars count for up to 8 of those hours. Hours are recorded in the online learning log before the end of each cycle.',
    direct: 'How many hours of continuing education must chartered members complete?',
    paraphrased: 'How much ongoing training do I need to keep my professional title?',
  },
  {
    heading: 'Ethics complaints',
    text: 'An ethics complaint is filed in writing with the professional conduct panel. The panel acknowledges each complaint within 10 working days and may hold a hearing. Decisions can be appealed once to the board.',
    direct: 'How do I file an ethics complaint with the professional conduct panel?',
    paraphrased: 'Where do I report a colleague who behaved dishonestly?',
  },
  {
    heading: 'Board elections',
    text: 'The board is elected by postal and online ballot every three years. Candidates need nominations from five members in good standing. The returning officer publishes the results at the general assembly.',
    direct: 'How many nominations does a candidate for the board election need?',
    paraphrased: 'What support must I gather to stand for the governing council?',
  },
];

const safety: Topic[] = [
  {
    heading: 'Site inspections',
    text: 'Every bridge site is inspected before work starts and then every week. The inspector checks scaffolding, harness anchor points and the condition of temporary barriers, and signs the site register.',
    direct: 'How often is a bridge site inspected once work has started?',
    paraphrased: 'At what interval does someone come to check the construction area?',
  },
  {
    heading: 'Working at height',
    text: 'Anyone working more than two metres above the ground must wear a full body harness clipped to an approved anchor. Harnesses are replaced after any fall or after five years of service.',
    direct: 'When must a full body harness be worn on site?',
    paraphrased: 'What fall protection is required when I am up high?',
  },
  {
    heading: 'Incident reporting',
    text: 'Injuries and near misses are reported to the site safety officer the same day using form IR-2. Serious injuries are also reported to the national regulator within 72 hours.',
    direct: 'Within how many hours are serious injuries reported to the national regulator?',
    paraphrased: 'How quickly must the government be told when a worker gets badly hurt?',
  },
  {
    heading: 'Noise and hearing',
    text: 'Hearing protection is mandatory wherever noise exceeds 85 decibels, such as near pile drivers and concrete saws. Workers exposed every day have a hearing test once a year.',
    direct: 'Above how many decibels is hearing protection mandatory?',
    paraphrased: 'When do I need ear defenders because the machines are too loud?',
  },
  {
    heading: 'Weather stoppages',
    text: 'Lifting operations stop when wind speed exceeds 38 kilometres per hour or during lightning. The crane supervisor records each stoppage and the time work resumed.',
    direct: 'At what wind speed do lifting operations stop?',
    paraphrased: 'When is the crane halted because of storms and gusts?',
  },
];

const grants: Topic[] = [
  {
    heading: 'Research grants',
    text: 'The research fund awards grants of up to 15,000 dollars for projects on bridge durability. Applications close on the last day of March and are reviewed by two independent referees.',
    direct: 'What is the maximum research grant for bridge durability projects?',
    paraphrased: 'How much money can the fund give to a study on how long structures last?',
  },
  {
    heading: 'Student scholarships',
    text: 'Scholarships of 3,000 dollars are offered to engineering students in their final year. Applicants submit a transcript, a reference letter and a short essay on sustainable design.',
    direct: 'What do applicants for a student scholarship submit?',
    paraphrased: 'Which documents should an undergraduate send to get financial aid?',
  },
  {
    heading: 'Travel bursaries',
    text: 'Travel bursaries cover economy airfare and three nights of accommodation for members presenting a paper abroad. Claims are paid after the trip on presentation of receipts.',
    direct: 'What do travel bursaries cover for members presenting a paper abroad?',
    paraphrased: 'Will the guild pay for my flights when I speak at a foreign event?',
  },
  {
    heading: 'Reporting on grants',
    text: 'Grant holders send a final report within six months of the project end date. Unspent funds above 500 dollars are returned to the research fund.',
    direct: 'When must grant holders send their final report?',
    paraphrased: 'What is the deadline for telling the funder how the project went?',
  },
];

const topicsToDocument = (name: string, topics: Topic[]): EvalDocument => ({ name, pages: topics.map(({ heading, text }) => ({ heading, text })) });

export const evalDocuments: EvalDocument[] = [topicsToDocument('Member Handbook', handbook), topicsToDocument('Site Safety Manual', safety), topicsToDocument('Grants and Bursaries Guide', grants)];

const unanswerable = [
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
];

export const evalQuestions: EvalQuestion[] = [
  ...[
    ['Member Handbook', handbook],
    ['Site Safety Manual', safety],
    ['Grants and Bursaries Guide', grants],
  ].flatMap(([document, topics]) =>
    (topics as Topic[]).flatMap((topic, i) => [
      { question: topic.direct, expect: { document: document as string, page: i + 1 }, kind: 'direct' as const },
      { question: topic.paraphrased, expect: { document: document as string, page: i + 1 }, kind: 'paraphrased' as const },
    ]),
  ),
  ...unanswerable.map((question) => ({ question, kind: 'unanswerable' as const })),
];
