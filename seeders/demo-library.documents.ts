// The demo library's documents: three short guides, one page per topic. They are also the chat's
// evaluation set (scripts/eval-set.ts asks its questions of these pages), so what a newcomer asks of
// the demo library is what `npm run eval` measures.
import type { AccessLevel } from '../src/modules/library/access-levels.ts';
import type { CategoryIcon } from '../src/modules/resource-catalog/category.mapper.ts';

export interface DemoPage {
  heading: string;
  text: string;
}

export interface DemoDocument {
  name: string;
  description: string;
  accessLevel: AccessLevel;
  category: { name: string; icon: CategoryIcon };
  tags: string[];
  pages: DemoPage[];
}

export const demoLibraryDocuments: DemoDocument[] = [
  {
    name: 'Member Handbook',
    description: 'Dues, the annual conference, continuing education, ethics complaints and board elections.',
    accessLevel: 'public',
    category: { name: 'Membership', icon: 'book' },
    tags: ['handbook', 'membership'],
    pages: [
      {
        heading: 'Membership dues',
        text: 'Annual membership dues are 180 dollars for full members and 60 dollars for students. Dues are invoiced every January and payable within 45 days. Members who cancel within 30 days of renewal receive a full refund.',
      },
      {
        heading: 'Annual conference',
        text: 'The annual conference takes place every October in Lisbon. Registration opens on the first of June, and members receive a 40 percent discount on the conference fee. Speakers are chosen by the programme committee.',
      },
      {
        heading: 'Continuing education',
        text: 'Chartered members must complete 24 hours of continuing education every two years. Webinars count for up to 8 of those hours. Hours are recorded in the online learning log before the end of each cycle.',
      },
      {
        heading: 'Ethics complaints',
        text: 'An ethics complaint is filed in writing with the professional conduct panel. The panel acknowledges each complaint within 10 working days and may hold a hearing. Decisions can be appealed once to the board.',
      },
      {
        heading: 'Board elections',
        text: 'The board is elected by postal and online ballot every three years. Candidates need nominations from five members in good standing. The returning officer publishes the results at the general assembly.',
      },
    ],
  },
  {
    name: 'Site Safety Manual',
    description: 'Inspections, working at height, incident reporting, noise and weather stoppages on bridge sites.',
    accessLevel: 'members',
    category: { name: 'Health and safety', icon: 'tools' },
    tags: ['safety', 'sites'],
    pages: [
      {
        heading: 'Site inspections',
        text: 'Every bridge site is inspected before work starts and then every week. The inspector checks scaffolding, harness anchor points and the condition of temporary barriers, and signs the site register.',
      },
      {
        heading: 'Working at height',
        text: 'Anyone working more than two metres above the ground must wear a full body harness clipped to an approved anchor. Harnesses are replaced after any fall or after five years of service.',
      },
      {
        heading: 'Incident reporting',
        text: 'Injuries and near misses are reported to the site safety officer the same day using form IR-2. Serious injuries are also reported to the national regulator within 72 hours.',
      },
      {
        heading: 'Noise and hearing',
        text: 'Hearing protection is mandatory wherever noise exceeds 85 decibels, such as near pile drivers and concrete saws. Workers exposed every day have a hearing test once a year.',
      },
      {
        heading: 'Weather stoppages',
        text: 'Lifting operations stop when wind speed exceeds 38 kilometres per hour or during lightning. The crane supervisor records each stoppage and the time work resumed.',
      },
    ],
  },
  {
    name: 'Grants and Bursaries Guide',
    description: 'Research grants, student scholarships, travel bursaries and reporting on a grant.',
    accessLevel: 'premium',
    category: { name: 'Funding', icon: 'briefcase' },
    tags: ['grants', 'funding'],
    pages: [
      {
        heading: 'Research grants',
        text: 'The research fund awards grants of up to 15,000 dollars for projects on bridge durability. Applications close on the last day of March and are reviewed by two independent referees.',
      },
      {
        heading: 'Student scholarships',
        text: 'Scholarships of 3,000 dollars are offered to engineering students in their final year. Applicants submit a transcript, a reference letter and a short essay on sustainable design.',
      },
      {
        heading: 'Travel bursaries',
        text: 'Travel bursaries cover economy airfare and three nights of accommodation for members presenting a paper abroad. Claims are paid after the trip on presentation of receipts.',
      },
      {
        heading: 'Reporting on grants',
        text: 'Grant holders send a final report within six months of the project end date. Unspent funds above 500 dollars are returned to the research fund.',
      },
    ],
  },
];
