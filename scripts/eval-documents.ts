// The evaluation's own documents, beside the demo library's three guides (scripts/eval-set.ts): eight
// association documents of other kinds, each made as a real file (PDF with a running title and page
// labels, Word with tables, Excel, PowerPoint) and read by the ingestion's extractors, so the chat is
// measured on what ingestion makes of a file and not on clean text. Each comes with the questions its
// pages answer (once in their words, once paraphrased without them) and questions on its subject that
// it does not answer (a hotel where it gives a city, a fee it does not list).
import {
  AlignmentType,
  Document,
  HeadingLevel,
  Packer,
  PageBreak,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
  WidthType,
} from 'docx';
import { makePdf, makePptx, makeXlsx, type PptxSlide, type XlsxSheet } from '../tests/support/documents.ts';

export type EvalFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx';

export interface PageQuestion {
  /** 1-based page, slide or sheet that answers. */
  page: number;
  direct: string;
  paraphrased: string;
}

export interface EvalFile {
  name: string;
  kind: string;
  format: EvalFormat;
  split: 'dev' | 'test';
  build(): Promise<Buffer>;
  questions: PageQuestion[];
  /** On the document's subject, but the document does not give the detail asked. */
  unanswerable: string[];
}

/** The running titles the PDFs were made with (filled as they are built): an answer must never quote one. */
export const runningTitles = new Set<string>();

/** A PDF whose pages carry a running title on top and a page label at the foot, as most reports do. */
function pdfWithFurniture(title: string, pages: readonly string[]): Promise<Buffer> {
  runningTitles.add(title);
  return makePdf(pages.map((text, i) => `${title}\n\n${text}\n\nPage ${i + 1} of ${pages.length}`));
}

// a Word table: one row per line, the first row the column labels
function table(rows: readonly (readonly string[])[]): Table {
  return new Table({
    width: { size: 100, type: WidthType.PERCENTAGE },
    rows: rows.map(
      (cells, r) =>
        new TableRow({
          children: cells.map(
            (cell) =>
              new TableCell({
                children: [
                  new Paragraph({
                    alignment: AlignmentType.LEFT,
                    children: [new TextRun({ text: cell, bold: r === 0 })],
                  }),
                ],
              }),
          ),
        }),
    ),
  });
}

type WordBlock = string | readonly (readonly string[])[];

/** A Word file: sections (a heading, paragraphs and tables), each on a new page. */
async function wordDocument(
  sections: ReadonlyArray<{ heading: string; blocks: readonly WordBlock[] }>,
): Promise<Buffer> {
  const children: Array<Paragraph | Table> = [];
  sections.forEach((section, i) => {
    if (i > 0) children.push(new Paragraph({ children: [new PageBreak()] }));
    children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun(section.heading)] }));
    for (const block of section.blocks)
      children.push(typeof block === 'string' ? new Paragraph({ children: [new TextRun(block)] }) : table(block));
  });
  return Packer.toBuffer(new Document({ creator: 'eval', title: 'Eval', sections: [{ children }] }));
}

const cpdPolicy: EvalFile = {
  name: 'Continuing Professional Development Policy',
  kind: 'policy',
  format: 'pdf',
  split: 'test',
  build: () =>
    pdfWithFurniture('Continuing Professional Development Policy', [
      'Purpose and scope\n\nThis policy sets out how members of the Institute maintain their professional competence. It applies to all chartered and associate members who hold a practising certificate. The policy takes effect on 1 January 2026 and replaces the policy adopted in 2019.',
      'Annual requirements\n\nChartered members must record 30 CPD credits in each membership year, at least 10 of which must come from structured learning such as accredited courses or conferences. Associate members must record 15 credits. One credit equals one hour of learning. Self-study, such as reading journals, counts for at most 12 credits a year.',
      'Recording and audit\n\nMembers record their activities in the online CPD portal within 60 days of completing them. Each year the Institute audits a random sample of 5 percent of members. A member selected for audit must submit evidence of every recorded activity within 28 days of the request.',
      'Non-compliance and exemptions\n\nA member who has not met the requirement by the end of the year is given a grace period of three months to catch up. After the grace period the practising certificate is suspended until the shortfall is made good. Members on parental leave, with a serious illness or on a career break may apply in writing to the Professional Standards Committee for an exemption.',
    ]),
  questions: [
    {
      page: 1,
      direct: 'When does the CPD policy take effect?',
      paraphrased: 'From what date do these learning rules start to apply?',
    },
    {
      page: 2,
      direct: 'How many CPD credits must chartered members record each year?',
      paraphrased: 'How much learning do fully qualified members need to log annually?',
    },
    {
      page: 2,
      direct: 'How many credits can self-study count for?',
      paraphrased: 'Is there a cap on reading journals on my own towards my total?',
    },
    {
      page: 3,
      direct: 'What share of members does the Institute audit each year?',
      paraphrased: 'What proportion of people get their records checked?',
    },
    {
      page: 4,
      direct: 'What happens after the grace period if the CPD requirement is not met?',
      paraphrased: 'What is the consequence if I still have not caught up three months late?',
    },
  ],
  unanswerable: [
    'How much is the fee for a CPD audit?',
    'Which online course provider does the Institute recommend for self-study?',
    'How many members failed the CPD audit last year?',
  ],
};

const prospectus: EvalFile = {
  name: 'Sponsorship Prospectus 2027',
  kind: 'prospectus',
  format: 'pdf',
  split: 'test',
  build: () =>
    pdfWithFurniture('Sponsorship Prospectus 2027', [
      'About the conference\n\nThe Annual Conference takes place from 14 to 16 September 2027 in Lisbon, Portugal. We expect around 1,200 delegates from engineering firms, universities and public agencies across Europe. Sponsors reach senior decision makers over three days of talks, workshops and networking.',
      'Sponsorship packages\n\nPlatinum sponsorship costs 25,000 euros and includes a keynote slot and ten conference passes. Gold sponsorship costs 12,000 euros and includes an exhibition stand of six by three metres and five passes. Silver sponsorship costs 6,000 euros and includes two passes and your logo on the conference website.',
      'Exhibition area\n\nExhibition stands are allocated on a first come, first served basis. Build-up starts on 13 September from 08:00. Stands must be cleared by 18:00 on 16 September, and any material left behind is disposed of at the sponsor’s cost.',
      'Booking and payment\n\nSend the completed booking form to the sponsorship team. A deposit of 50 percent is due on signature and the balance by 30 June 2027. Cancellations received before 31 May 2027 are refunded minus an administration fee of 10 percent; later cancellations are not refunded.',
    ]),
  questions: [
    {
      page: 1,
      direct: 'Where does the Annual Conference 2027 take place?',
      paraphrased: 'In which country is next year’s big gathering held?',
    },
    {
      page: 2,
      direct: 'How much does Gold sponsorship cost?',
      paraphrased: 'What is the price of the second tier package for backers?',
    },
    {
      page: 2,
      direct: 'What does Platinum sponsorship include?',
      paraphrased: 'What do top-level partners get in return for their money?',
    },
    {
      page: 3,
      direct: 'When does build-up of the exhibition stands start?',
      paraphrased: 'From what time can exhibitors begin setting up their booth?',
    },
    {
      page: 4,
      direct: 'When is the balance of the sponsorship payment due?',
      paraphrased: 'By what date must the remaining money be paid?',
    },
  ],
  unanswerable: [
    'Which hotel hosts the annual conference?',
    'What is the price of a delegate ticket for people who are not sponsors?',
    'How many sponsors exhibited at last year’s conference?',
  ],
};

const financialReport: EvalFile = {
  name: 'Annual Financial Report 2025',
  kind: 'financial report',
  format: 'pdf',
  split: 'test',
  build: () =>
    pdfWithFurniture('Annual Financial Report 2025', [
      "Treasurer's overview\n\nTotal income rose by 6 percent to 2.31 million pounds in 2025. The association recorded a surplus of 145,000 pounds after all costs. Free reserves at the year end were equal to seven months of operating costs.",
      'Income\n\nIncome by source, in pounds, 2025 and 2024:\nMembership subscriptions 1,240,000 1,180,000\nConferences and events 610,000 575,000\nTraining courses 330,000 300,000\nPublications 85,000 92,000\nInvestment income 45,000 31,000\nTotal income 2,310,000 2,178,000',
      'Expenditure\n\nExpenditure by category, in pounds, 2025 and 2024:\nStaff costs 1,150,000 1,090,000\nPremises 210,000 205,000\nEvents delivery 480,000 455,000\nIT and systems 190,000 160,000\nGovernance 135,000 128,000\nTotal expenditure 2,165,000 2,038,000',
      'Reserves and audit\n\nThe reserves policy sets a target of six months of operating costs, held in an ethical investment fund. The accounts were audited by Hallam and Price LLP, who gave an unqualified opinion. The board approved the accounts on 20 March 2026.',
    ]),
  questions: [
    {
      page: 1,
      direct: 'What surplus did the association record in 2025?',
      paraphrased: 'How much money was left over once every bill was paid last year?',
    },
    {
      page: 2,
      direct: 'How much income came from membership subscriptions in 2025?',
      paraphrased: 'What did member dues bring in for the year?',
    },
    {
      page: 3,
      direct: 'How much were staff costs in 2025?',
      paraphrased: 'What was spent on salaries for employees?',
    },
    {
      page: 3,
      direct: 'What was the total expenditure in 2025?',
      paraphrased: 'What did the organisation spend altogether?',
    },
    {
      page: 4,
      direct: 'Who audited the accounts?',
      paraphrased: 'Which firm checked the books independently?',
    },
  ],
  unanswerable: [
    'How much was the chief executive paid in 2025?',
    'How much did the association spend on travel in 2025?',
    'What were membership subscriptions in 2021?',
  ],
};

const minutes: EvalFile = {
  name: 'Board Meeting Minutes March 2026',
  kind: 'minutes',
  format: 'pdf',
  split: 'dev',
  build: () =>
    pdfWithFurniture('Minutes of the Board of Trustees', [
      'Attendance\n\nThe meeting was held on 12 March 2026 at the headquarters in Leeds and chaired by Dr Amara Okafor. Nine of the eleven trustees were present. Apologies were received from James Whitfield and Priya Sandhu.',
      'Decisions\n\nThe board approved an increase of 3 percent in membership fees from 1 July 2026; the motion was carried by seven votes to two. The board adopted the Strategy 2026 to 2030 unanimously.',
      'Actions\n\nThe chief executive will publish a consultation on the governance review by 30 April 2026. The treasurer will report on the pension scheme liability at the June meeting.',
      'Next meeting\n\nThe next meeting of the board will be held online on 18 June 2026.',
    ]),
  questions: [
    {
      page: 1,
      direct: 'Who chaired the board meeting in March 2026?',
      paraphrased: 'Who led the trustees’ session in the spring?',
    },
    {
      page: 2,
      direct: 'By how much will membership fees increase from July 2026?',
      paraphrased: 'How much more will joining cost after the summer?',
    },
    {
      page: 2,
      direct: 'How many votes carried the motion on membership fees?',
      paraphrased: 'What was the result of the vote on dues?',
    },
    {
      page: 3,
      direct: 'When will the consultation on the governance review be published?',
      paraphrased: 'By what date will members be asked their views on how the board works?',
    },
    {
      page: 4,
      direct: 'When is the next meeting of the board?',
      paraphrased: 'When do the trustees gather again?',
    },
  ],
  unanswerable: [
    'What time did the board meeting finish?',
    'Who took the minutes of the March meeting?',
    'How much is the pension scheme liability?',
  ],
};

const faq: EvalFile = {
  name: 'Member FAQ',
  kind: 'FAQ',
  format: 'pdf',
  split: 'dev',
  build: () =>
    pdfWithFurniture('Frequently Asked Questions', [
      'Account and access\n\nHow do I reset my password? Use the Forgotten password link on the sign-in page and follow the email we send you; the link expires after 24 hours.\n\nHow do I update my postal address? Sign in, open My profile and edit the Contact details section.',
      'Payments\n\nCan I pay my membership in instalments? Yes, you can pay by monthly direct debit in twelve equal instalments.\n\nCan I get a refund? New members who cancel within 14 days of joining receive a full refund.',
      'Certificates and cards\n\nHow do I get my membership certificate? Certificates are posted within 10 working days of your election as a chartered member.\n\nWhat if I lose my membership card? A replacement card costs 5 pounds and can be ordered from My profile.',
    ]),
  questions: [
    {
      page: 1,
      direct: 'How do I reset my password?',
      paraphrased: 'I forgot how to sign in, what should I do?',
    },
    {
      page: 1,
      direct: 'How do I update my postal address?',
      paraphrased: 'I moved house, where do I change where my mail goes?',
    },
    {
      page: 2,
      direct: 'Can I pay my membership in instalments?',
      paraphrased: 'Is it possible to spread the annual cost over the months?',
    },
    {
      page: 2,
      direct: 'Can I get a refund if I cancel?',
      paraphrased: 'Will I get my money back if I change my mind right after joining?',
    },
    {
      page: 3,
      direct: 'How much does a replacement membership card cost?',
      paraphrased: 'What do I pay for a new card if mine went missing?',
    },
  ],
  unanswerable: [
    'What is the phone number of the membership team?',
    'Can I pay my membership with PayPal?',
    'How long does a refund take to reach my bank account?',
  ],
};

const deckSlides: PptxSlide[] = [
  {
    title: 'Strategy 2026 to 2030',
    bullets: ['Briefing for members and staff', 'Adopted by the Board of Trustees in March 2026'],
  },
  {
    title: 'Four priorities',
    bullets: [
      'Grow membership to 20,000 by 2030',
      'Digital learning for every stage of a career',
      'A stronger voice in public policy',
      'Financial resilience',
    ],
  },
  {
    title: 'Digital learning',
    bullets: ['Launch an online academy in 2027', 'Forty short courses in the first year', 'Live webinars every month'],
    notes: 'The academy courses will count towards CPD credits.',
  },
  {
    title: 'Membership growth',
    bullets: [
      'Free student membership for the first year',
      'Target of 5,000 student members',
      'Regional ambassadors in every nation',
    ],
  },
  {
    title: 'Investment',
    bullets: ['1.2 million pounds invested over four years', 'Funded from reserves above the six-month target'],
  },
];

const strategyDeck: EvalFile = {
  name: 'Strategy 2026-2030 Briefing',
  kind: 'slide deck',
  format: 'pptx',
  split: 'test',
  build: () => makePptx(deckSlides),
  questions: [
    {
      page: 2,
      direct: 'What membership number does the strategy aim for by 2030?',
      paraphrased: 'How big does the association want to become by the end of the decade?',
    },
    {
      page: 3,
      direct: 'When will the online academy launch?',
      paraphrased: 'In what year can I start taking courses on the web?',
    },
    {
      page: 4,
      direct: 'Is student membership free?',
      paraphrased: 'Do people still at college have to pay to join?',
    },
    {
      page: 5,
      direct: 'How much will be invested over four years?',
      paraphrased: 'What budget is set aside to deliver the plan?',
    },
    {
      page: 3,
      direct: 'How many courses will the online academy offer in its first year?',
      paraphrased: 'How many lessons will be available online at the start?',
    },
  ],
  unanswerable: [
    'How many trustees voted for the strategy?',
    'Who built the online academy platform?',
    'How much will the online academy courses cost members?',
  ],
};

const calendarSheets: XlsxSheet[] = [
  {
    name: 'Events',
    rows: [
      ['Event', 'Date', 'City', 'Price'],
      ['Regional Meetup North', '10 February 2026', 'Manchester', 'Free'],
      ['Young Engineers Forum', '22 April 2026', 'Bristol', '25 pounds'],
      ['Annual Dinner', '5 December 2026', 'London', '95 pounds'],
    ],
  },
  {
    name: 'Training courses',
    rows: [
      ['Course', 'Duration', 'Fee', 'CPD credits'],
      ['Project Risk Essentials', '2 days', '640 pounds', 14],
      ['Contract Law for Engineers', '1 day', '320 pounds', 7],
      ['Leadership Foundations', '3 days', '890 pounds', 21],
    ],
  },
  {
    name: 'Contacts',
    rows: [
      ['Role', 'Name', 'Email'],
      ['Events manager', 'Nadia Brooks', 'events@guild.example'],
      ['Training coordinator', 'Tom Lindqvist', 'training@guild.example'],
    ],
  },
];

const calendar: EvalFile = {
  name: 'Events and Training Calendar 2026',
  kind: 'spreadsheet',
  format: 'xlsx',
  split: 'dev',
  build: () => makeXlsx(calendarSheets),
  questions: [
    {
      page: 1,
      direct: 'When is the Regional Meetup North?',
      paraphrased: 'What day is the northern get-together?',
    },
    {
      page: 1,
      direct: 'What is the price of the Annual Dinner?',
      paraphrased: 'What does a seat at the December dinner cost?',
    },
    {
      page: 2,
      direct: 'What is the fee for Project Risk Essentials?',
      paraphrased: 'How much do I pay for the two-day risk course?',
    },
    {
      page: 2,
      direct: 'How many CPD credits does Leadership Foundations give?',
      paraphrased: 'How much learning time is the three-day leadership class worth?',
    },
    {
      page: 3,
      direct: 'Who is the training coordinator?',
      paraphrased: 'Whom do I contact about booking a course?',
    },
  ],
  unanswerable: [
    'How many people attended the Regional Meetup North?',
    'What is the dress code for the Annual Dinner?',
    'Which venue in Bristol hosts the Young Engineers Forum?',
  ],
};

const governance: EvalFile = {
  name: 'Governance Handbook',
  kind: 'Word document',
  format: 'docx',
  split: 'test',
  build: () =>
    wordDocument([
      {
        heading: 'Board committees',
        blocks: [
          'The board delegates detailed work to three standing committees, each chaired by a trustee.',
          [
            ['Committee', 'Chair', 'Term ends'],
            ['Audit and Risk', 'Helen Marsh', '2027'],
            ['Nominations', 'Samuel Adeyemi', '2026'],
            ['Remuneration', 'Priya Nair', '2028'],
          ],
        ],
      },
      {
        heading: 'Trustee elections',
        blocks: [
          'Trustees are elected by the members at the annual general meeting. Each trustee serves a term of three years and may serve at most two consecutive terms.',
        ],
      },
      {
        heading: 'Conflicts of interest',
        blocks: [
          'A trustee must declare any conflict of interest to the chair within seven days of becoming aware of it. The company secretary reviews the register of interests every year.',
        ],
      },
      {
        heading: 'Delegated authority',
        blocks: [
          'Spending is approved at the level set out below.',
          [
            ['Amount', 'Approved by'],
            ['Up to 50,000 pounds', 'Chief executive'],
            ['50,000 to 250,000 pounds', 'Finance committee'],
            ['Above 250,000 pounds', 'Full board'],
          ],
        ],
      },
    ]),
  questions: [
    {
      page: 1,
      direct: 'Who chairs the Audit and Risk committee?',
      paraphrased: 'Which trustee leads the group that oversees the auditors?',
    },
    {
      page: 1,
      direct: 'When does the term of the Nominations committee chair end?',
      paraphrased: 'Until what year does Samuel Adeyemi lead his committee?',
    },
    {
      page: 2,
      direct: 'How many consecutive terms may a trustee serve?',
      paraphrased: 'Is there a limit on how long someone can stay on the board?',
    },
    {
      page: 3,
      direct: 'Within how many days must a trustee declare a conflict of interest?',
      paraphrased: 'How soon must a board member disclose a personal stake in a decision?',
    },
    {
      page: 4,
      direct: 'Who approves spending above 250,000 pounds?',
      paraphrased: 'Who must sign off the very largest purchases?',
    },
  ],
  unanswerable: [
    'What is the email address of the Audit and Risk committee chair?',
    'When was the Governance Handbook last reviewed?',
    'How many times a year does the Remuneration committee meet?',
  ],
};

export const evalFiles: EvalFile[] = [
  cpdPolicy,
  prospectus,
  financialReport,
  minutes,
  faq,
  strategyDeck,
  calendar,
  governance,
];
