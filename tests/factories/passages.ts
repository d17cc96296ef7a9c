// Library resources with passages, for the chat's tests, the evaluation and the benchmark: rows are
// written directly (resources, resource_versions, resource_passages), text is split the way ingestion
// splits it (paragraphs gathered into passages of bounded length, page kept) and embedded with the
// container's embedder, the one ingestion uses, on the text ingestion gives it (embeddingInput).
import { createHash, randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { Embedder } from '../../src/integrations/embeddings/embedder.ts';
import { toVectorLiteral } from '../../src/integrations/embeddings/embedder.ts';
import type { AccessLevel } from '../../src/modules/library/access-levels.ts';
import { embeddingInput } from '../../src/modules/ingestion/ingestion.pipeline.ts';
import { inspectVectorSchema } from '../../src/shared/vector-schema.ts';

export interface DocumentPage {
  /** Page text; paragraphs separated by blank lines. */
  text: string;
  heading?: string;
}

export interface DocumentSpec {
  name: string;
  pages: ReadonlyArray<DocumentPage | string>;
  accessLevel?: AccessLevel;
  status?: 'draft' | 'published';
  categoryIds?: readonly string[];
  /** Skip embedding (keyword-only rows, or a database without pgvector). */
  embed?: boolean;
}

export interface BuiltDocument {
  resourceId: string;
  versionId: string;
  passages: number;
}

/** Splits a page into passages of at most `maxChars`, on paragraph then sentence boundaries. */
export function splitPage(text: string, maxChars = 700): string[] {
  const passages: string[] = [];
  let current = '';
  const pieces = text
    .split(/\n\s*\n/u)
    .flatMap((paragraph) => (paragraph.length > maxChars ? paragraph.split(/(?<=[.!?])\s+/u) : [paragraph]))
    .map((piece) => piece.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  for (const piece of pieces) {
    if (current && current.length + piece.length + 1 > maxChars) {
      passages.push(current);
      current = '';
    }
    current = current ? `${current} ${piece}` : piece;
  }
  if (current) passages.push(current);
  return passages;
}

const vectorColumn = new WeakMap<Sequelize, Promise<boolean>>();
function hasVectorColumn(sequelize: Sequelize): Promise<boolean> {
  let known = vectorColumn.get(sequelize);
  if (!known) {
    known = inspectVectorSchema(sequelize).then(
      (s) => s.extension === 'installed' && !s.pending.includes('resource_passages.embedding'),
    );
    vectorColumn.set(sequelize, known);
  }
  return known;
}

export async function buildDocument(
  deps: { sequelize: Sequelize; embedder: Embedder },
  organizationId: string,
  spec: DocumentSpec,
): Promise<BuiltDocument> {
  const { sequelize, embedder } = deps;
  const level = spec.accessLevel ?? 'public';
  const status = spec.status ?? 'published';
  const resourceId = randomUUID();
  const versionId = randomUUID();
  await sequelize.query(
    `INSERT INTO resources (id, organization_id, name, type, format, access_level, price_amount, price_currency, status, published_at)
     VALUES ($1, $2, $3, 'document', 'pdf', $4, $5, $6, $7, $8)`,
    {
      bind: [
        resourceId,
        organizationId,
        spec.name,
        level,
        level === 'paid' ? '25.000' : null,
        level === 'paid' ? 'USD' : null,
        status,
        status === 'published' ? new Date() : null,
      ],
    },
  );
  await sequelize.query(
    `INSERT INTO resource_versions (id, organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
     VALUES ($1, $2, $3, 1, $4, $5, 'application/pdf', 'pdf', 1, $6)`,
    {
      bind: [
        versionId,
        organizationId,
        resourceId,
        `orgs/${organizationId}/resources/${resourceId}/v1.pdf`,
        `${resourceId}.pdf`,
        createHash('sha256').update(resourceId).digest('hex'),
      ],
    },
  );
  for (const categoryId of spec.categoryIds ?? []) {
    await sequelize.query(
      `INSERT INTO resource_category_links (resource_id, category_id, organization_id) VALUES ($1, $2, $3)`,
      { bind: [resourceId, categoryId, organizationId] },
    );
  }
  const rows: Array<{ page: number; heading: string | null; content: string }> = [];
  spec.pages.forEach((page, i) => {
    const { text, heading } = typeof page === 'string' ? { text: page, heading: undefined } : page;
    for (const content of splitPage(text)) rows.push({ page: i + 1, heading: heading ?? null, content });
  });
  const withVectors = spec.embed !== false && (await hasVectorColumn(sequelize));
  const vectors = withVectors
    ? await embedder.embed(rows.map((row) => embeddingInput({ content: row.content, heading_path: row.heading })))
    : [];
  if (rows.length) {
    await sequelize.query(
      `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, heading_path, content, embedding_model${withVectors ? ', embedding' : ''})
       SELECT $1, $2, $3, o - 1, page, 'page', heading, content, ${withVectors ? '$8, vec::vector' : 'NULL'}
         FROM unnest($4::int[], $5::text[], $6::text[]${withVectors ? ', $7::text[]' : ''}) WITH ORDINALITY AS x(page, heading, content${withVectors ? ', vec' : ''}, o)`,
      {
        bind: [
          organizationId,
          resourceId,
          versionId,
          rows.map((r) => r.page),
          rows.map((r) => r.heading),
          rows.map((r) => r.content),
          ...(withVectors ? [vectors.map((v) => toVectorLiteral(v)), embedder.model] : []),
        ],
      },
    );
  }
  return { resourceId, versionId, passages: rows.length };
}

export async function buildCategory(
  sequelize: Sequelize,
  organizationId: string,
  name = `Category ${randomUUID().slice(0, 8)}`,
): Promise<string> {
  const [rows] = await sequelize.query(
    `INSERT INTO resource_categories (organization_id, name) VALUES ($1, $2) RETURNING id`,
    { bind: [organizationId, name] },
  );
  return (rows as Array<{ id: string }>)[0]!.id;
}

export async function grantEntitlement(
  sequelize: Sequelize,
  organizationId: string,
  resourceId: string,
  memberId: string,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO resource_entitlements (organization_id, resource_id, member_id) VALUES ($1, $2, $3)`,
    { bind: [organizationId, resourceId, memberId] },
  );
}
