// The spec's two access vocabularies are two views of one stored level. The API accepts either
// vocabulary (or the stored slug) on input and answers with the stored level plus both labels.

export const ACCESS_LEVELS = ['public', 'preview', 'members', 'premium', 'paid'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** Management vocabulary (A): Public, Partially Gated, Fully Gated, Paid. Premium is a kind of members-only. */
export const MANAGEMENT_LABELS: Record<AccessLevel, string> = {
  public: 'Public',
  preview: 'Partially Gated',
  members: 'Fully Gated',
  premium: 'Fully Gated',
  paid: 'Paid',
};

/** Library vocabulary (B): Public, Member, Premium, Paid. A preview's file needs membership: Member. */
export const LIBRARY_LABELS: Record<AccessLevel, string> = {
  public: 'Public',
  preview: 'Member',
  members: 'Member',
  premium: 'Premium',
  paid: 'Paid',
};

/**
 * Every spelling accepted on input -> the stored level. Labels are matched ignoring case, spaces,
 * hyphens and underscores ("Partially Gated", "partially_gated", "partially-gated").
 * "Member" (vocabulary B) means members-only, not a preview.
 */
const INPUT: Record<string, AccessLevel> = {
  public: 'public',
  preview: 'preview',
  partiallygated: 'preview',
  members: 'members',
  member: 'members',
  fullygated: 'members',
  premium: 'premium',
  paid: 'paid',
};

/** The input spellings as the contract lists them. */
export const ACCESS_LEVEL_INPUTS = [
  'public',
  'preview',
  'members',
  'premium',
  'paid',
  'Public',
  'Partially Gated',
  'Fully Gated',
  'Paid',
  'Member',
  'Premium',
  'partially_gated',
  'fully_gated',
  'member',
] as const;

const normalised = (spelling: string) => spelling.toLowerCase().replace(/[\s_-]+/g, '');

export function parseAccessLevel(input: string): AccessLevel | undefined {
  return INPUT[normalised(input)];
}

/**
 * A filter value -> the stored levels it finds. A stored slug finds itself; a label finds every level
 * answered with that label, so a client filtering by the label it was shown finds what showed it
 * ("Member" finds `preview` and `members`, "Fully Gated" finds `members` and `premium`).
 */
export function accessLevelsLabelled(input: string): AccessLevel[] {
  const spelling = normalised(input);
  if ((ACCESS_LEVELS as readonly string[]).includes(spelling)) return [spelling as AccessLevel];
  return ACCESS_LEVELS.filter(
    (level) => normalised(MANAGEMENT_LABELS[level]) === spelling || normalised(LIBRARY_LABELS[level]) === spelling,
  );
}

export const accessLabels = (level: AccessLevel) => ({
  management: MANAGEMENT_LABELS[level],
  library: LIBRARY_LABELS[level],
});
