// The chat's retrieval repository: hybrid (full-text + vector, fused by reciprocal rank), filtered
// inside its SQL by organization, the reader's open predicate and the category scope, and served by
// the GIN and HNSW indexes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveReader } from '../../src/modules/library/resource.access.ts';
import { PassageRetrieval } from '../../src/modules/chat/passage-retrieval.repository.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { buildLibrary, type LibraryFixture } from './library-fixture.ts';

const embedded = !process.env.DATABASE_URL;

describe('passage retrieval', () => {
  let t: TestApp;
  let lib: LibraryFixture;
  let retrieval: PassageRetrieval;

  before(async () => {
    t = await startTestApp();
    lib = await buildLibrary(t);
    retrieval = new PassageRetrieval({
      sql: t.container.sql,
      sequelize: t.db.sequelize,
      embedder: t.container.embedder,
    });
  });
  after(() => t?.close());

  const retrieve = async (who: keyof LibraryFixture['users'], query: string, categoryIds?: string[]) =>
    retrieval.retrieve(await resolveReader(t.container.sql, lib.actor(who)), { query, categoryIds });

  it('when asked with the page’s words, then the answering page ranks first on both sides', async () => {
    const result = await retrieve('member', 'How long do I have to ask for a refund of my dues?');
    assert.equal(result.keywordOnly, !embedded);
    const top = result.passages[0]!;
    assert.equal(top.resourceId, lib.docs.handbook);
    assert.equal(top.pageNumber, 2);
    assert.equal(top.keywordRank, 1);
    if (embedded) assert.ok(top.vectorRank !== null && top.similarity !== null);
    assert.ok(top.coverage >= 0.5, String(top.coverage));
  });

  if (embedded) {
    it('when asked without the page’s words, then the vector side finds it', async () => {
      const result = await retrieve('member', 'Where is the yearly convention held?');
      const hit = result.passages.find((p) => p.resourceId === lib.docs.handbook && p.pageNumber === 3);
      assert.ok(hit, JSON.stringify(result.passages.map((p) => [p.resourceName, p.pageNumber])));
      assert.ok(hit.vectorRank !== null && hit.vectorRank <= 3, String(hit.vectorRank));
    });
  }

  it('when readers of each standing ask for each protected document, then only what they may open comes back', async () => {
    const cases: Array<
      [string, keyof LibraryFixture['docs'], Array<keyof LibraryFixture['users']>, Array<keyof LibraryFixture['users']>]
    > = [
      [
        'zircon survey median salary',
        'premiumSurvey',
        ['admin', 'staff', 'premium'],
        ['member', 'buyer', 'lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'obsidian checklist inspection steps',
        'paidToolkit',
        ['admin', 'staff', 'buyer'],
        ['member', 'premium', 'lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'quartz session board dues',
        'draftMinutes',
        ['admin'],
        ['staff', 'member', 'premium', 'buyer', 'visitor', 'otherAdmin'],
      ],
      [
        'wayfinder mentor mentee',
        'membersGuide',
        ['admin', 'staff', 'member', 'premium', 'buyer'],
        ['lapsed', 'visitor', 'otherAdmin'],
      ],
      [
        'jasper rule other guild',
        'otherTenant',
        ['otherAdmin'],
        ['admin', 'staff', 'member', 'premium', 'buyer', 'lapsed', 'visitor'],
      ],
    ];
    for (const [query, doc, allowed, refused] of cases) {
      for (const who of allowed) {
        const result = await retrieve(who, query);
        assert.ok(
          result.passages.some((p) => p.resourceId === lib.docs[doc]),
          `${who} should get ${doc}`,
        );
      }
      for (const who of refused) {
        const result = await retrieve(who, query);
        assert.ok(!result.passages.some((p) => p.resourceId === lib.docs[doc]), `${who} must not get ${doc}`);
      }
    }
  });

  it('when scoped to a category, then only resources linked to it come back', async () => {
    const scoped = await retrieve('admin', 'annual dues wayfinder mentor quartz', [lib.categoryId]);
    assert.ok(scoped.passages.length > 0);
    assert.ok(
      scoped.passages.every((p) => p.resourceId === lib.docs.membersGuide || p.resourceId === lib.docs.draftMinutes),
    );
  });

  it('when the question has no content words, then keyword search contributes nothing and nothing breaks', async () => {
    const result = await retrieve('member', 'what is it?');
    assert.equal(result.queryTerms, 0);
    assert.ok(result.passages.every((p) => p.keywordRank === null));
  });

  it('EXPLAIN: the keyword side uses the GIN index and the vector side the HNSW index', async () => {
    const plan = async (text: string, values: unknown[]) =>
      t.db.sequelize.transaction(async (transaction) => {
        // few rows: without this the planner rightly prefers a sequential scan
        await t.container.sql.query('SET LOCAL enable_seqscan = off', [], transaction);
        // as retrieve() runs it (iterative HNSW scans)
        await t.container.sql.query('SET LOCAL hnsw.iterative_scan = relaxed_order', [], transaction);
        const rows = await t.container.sql.rows<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values, transaction);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    // a library of realistic shape (200 resources of 15 passages), so neither walking the organization's
    // resources nor scanning the table is the cheap way in
    await t.db.sequelize.query(
      `WITH r AS (
         INSERT INTO resources (organization_id, name, type, format, access_level, status, published_at)
         SELECT $1, 'Filler ' || g, 'document', 'pdf', 'public', 'published', now() FROM generate_series(1, 200) g RETURNING id),
       v AS (
         INSERT INTO resource_versions (organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
         SELECT $1, r.id, 1, 'k/' || r.id, 'f.pdf', 'application/pdf', 'pdf', 1, md5(r.id::text) || md5(r.id::text) FROM r RETURNING id, resource_id)
       INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, content)
       SELECT $1, v.resource_id, v.id, g, 1, 'page', 'filler passage ' || g || ' on ' || md5(v.id::text || g)
         FROM v, generate_series(0, 14) g`,
      { bind: [lib.organizationId] },
    );
    if (embedded) {
      // fillers embedded by the current model too (random directions), so the model's own index is no
      // shortcut and the planner has to choose between the HNSW index and walking the resources. The
      // HNSW index is built once over them, as the schema defines it (its definition read back), instead
      // of taking 3 000 insertions one by one (50 s of CPU on PGlite): the same index, built in seconds
      const index = await t.container.sql.one<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE indexname = 'resource_passages_embedding_hnsw_idx'`,
        [],
      );
      assert.ok(index, 'the schema has the HNSW index');
      await t.db.sequelize.query('DROP INDEX resource_passages_embedding_hnsw_idx');
      await t.db.sequelize.query(
        `UPDATE resource_passages p SET embedding_model = $2,
                embedding = (SELECT ('[' || string_agg((random() - 0.5)::text, ',') || ']')::vector FROM generate_series(1, 512) WHERE p.ordinal >= 0)
          WHERE p.organization_id = $1 AND p.content LIKE 'filler passage %'`,
        { bind: [lib.organizationId, t.container.embedder.model] },
      );
      await t.db.sequelize.query(index.indexdef);
    }
    await t.db.sequelize.query('ANALYZE resources');
    await t.db.sequelize.query('ANALYZE resource_versions');
    await t.db.sequelize.query('ANALYZE resource_passages');
    const reader = await resolveReader(t.container.sql, lib.actor('member'));
    // the statement retrieve() runs, captured from the repository
    const captured: Array<{ text: string; values: unknown[] }> = [];
    const spy = new PassageRetrieval({
      sql: new Proxy(t.container.sql, {
        get(target, key) {
          if (key === 'rows')
            return async (text: string, values: unknown[], tx?: unknown) => {
              if (/WITH tsq/.test(text)) captured.push({ text, values });
              return target.rows(text, values, tx as never);
            };
          return Reflect.get(target, key, target);
        },
      }),
      sequelize: t.db.sequelize,
      embedder: t.container.embedder,
    });
    await spy.retrieve(reader, { query: 'refund of annual dues' });
    assert.equal(captured.length, 1);
    const explained = await plan(captured[0]!.text, captured[0]!.values);
    assert.match(explained, /resource_passages_search_idx/, explained);
    if (embedded) assert.match(explained, /resource_passages_embedding_hnsw_idx/, explained);
  });
});
