// Library resources with extracted text, as ingestion leaves them (resources, resource_versions,
// resource_passages rows), for the generation tests: generation reads passages, not files.
import { createHash, randomUUID } from 'node:crypto';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { ResourceVersion } from '../../src/modules/library/resource-version.model.ts';
import type { AccessLevel } from '../../src/modules/library/access-levels.ts';
import type { TestApp } from '../setup/test-app.ts';

export interface PassageInput {
  pageNumber: number;
  headingPath?: string | null;
  content: string;
}

/** A short annual report: two sections, figures, and few enough sentences to speak in seconds. */
export const SHORT_REPORT: PassageInput[] = [
  {
    pageNumber: 1,
    headingPath: 'Annual Report > Membership growth',
    content:
      'Membership grew to 1,250 members this year. Renewals reached 42% in the first month, the best result on record.',
  },
  {
    pageNumber: 2,
    headingPath: 'Annual Report > Finances',
    content:
      'Total revenue was $1.2 million, up from $950,000 last year. The board will invest the surplus in training.',
  },
];

/** A richer document for the infographic: statistics, comparable shares, numbered steps. */
export const RICH_REPORT: PassageInput[] = [
  {
    pageNumber: 1,
    headingPath: 'Annual Report 2025 > Membership growth',
    content:
      "Membership grew to 1,250 members in 2025, the largest intake in the association's history. " +
      'Renewals reached 42% within the first month of the renewal window. Members in the north region grew fastest.',
  },
  {
    pageNumber: 2,
    headingPath: 'Annual Report 2025 > Finances',
    content:
      'Total revenue was $1.2 million, up from $950,000 the year before. ' +
      'Events brought in 45% of revenue, membership dues 30% of revenue and sponsorship 25% of revenue. ' +
      'Costs stayed flat thanks to <shared> venues & volunteers.',
  },
  {
    pageNumber: 3,
    headingPath: 'Annual Report 2025 > How to renew',
    content:
      'Renewing takes four steps.\n1. Sign in to the member portal\n2. Check your contact details\n3. Choose your membership tier\n4. Pay the annual fee online',
  },
];

export async function buildSourceResource(
  organizationId: string,
  options: { name?: string; accessLevel?: AccessLevel; status?: 'draft' | 'published'; passages?: PassageInput[] } = {},
): Promise<{ resource: Resource; version: ResourceVersion }> {
  const status = options.status ?? 'published';
  const resource = await Resource.create({
    organizationId,
    name: options.name ?? `Annual report ${randomUUID().slice(0, 6)}`,
    description: "The association's year in review.",
    type: 'document',
    format: 'pdf',
    accessLevel: options.accessLevel ?? 'members',
    ...(options.accessLevel === 'paid' ? { priceAmount: '25.000', priceCurrency: 'USD' } : {}),
    status,
    publishedAt: status === 'published' ? new Date() : null,
  });
  const version = await addVersionRow(resource, 1, options.passages ?? SHORT_REPORT);
  return { resource, version };
}

async function addVersionRow(resource: Resource, number: number, passages: PassageInput[]): Promise<ResourceVersion> {
  const body = passages.map((p) => p.content).join('\n');
  const version = await ResourceVersion.create({
    organizationId: resource.organizationId,
    resourceId: resource.id,
    version: number,
    storageKey: `orgs/${resource.organizationId}/resources/${resource.id}/v${number}.pdf`,
    fileName: 'report.pdf',
    contentType: 'application/pdf',
    format: 'pdf',
    sizeBytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
  });
  const sequelize = Resource.sequelize!;
  for (const [ordinal, passage] of passages.entries()) {
    await sequelize.query(
      `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, heading_path, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      {
        bind: [
          resource.organizationId,
          resource.id,
          version.id,
          ordinal,
          passage.pageNumber,
          passage.headingPath ? 'section' : 'page',
          passage.headingPath ?? null,
          passage.content,
        ],
      },
    );
  }
  return version;
}

/** A new file version, as the library's update does it: current_version moves and resource.version_added is published. */
export async function addSourceVersion(
  t: TestApp,
  resource: Resource,
  passages: PassageInput[],
): Promise<ResourceVersion> {
  const number = resource.currentVersion + 1;
  const version = await addVersionRow(resource, number, passages);
  await t.container.db.sequelize.transaction(async (transaction) => {
    await resource.update({ currentVersion: number }, { transaction });
    await t.container.domainEvents.publish(
      null,
      'resource.version_added',
      { id: resource.id, currentVersion: number },
      transaction,
    );
  });
  return version;
}
