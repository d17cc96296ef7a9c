// The vector schema converges: a vector column a migration declared while pgvector was missing is
// added (with its index) at the first start that finds the extension, and /health says where it stands.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { QueryTypes } from 'sequelize';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { migrateUp } from '../../src/shared/migrator.ts';
import { convergeVectorSchema, declareVectorColumn, inspectVectorSchema } from '../../src/shared/vector-schema.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import { startTestApp } from '../setup/test-app.ts';

const embedded = !process.env.DATABASE_URL;
const logger = createLogger('silent');

describe('vector schema', () => {
  let database: TestDatabase;
  after(() => database?.drop());

  it('when pgvector is missing, then migrations still apply, the declared column is pending and search is keyword', async () => {
    // Persistent and not from the template (which has pgvector): PGlite starts here without the extension;
    // the machine's PostgreSQL server has none anyway.
    database = await createTestDatabase({ persistent: true, template: false });
    const db = await openDatabase({
      databaseUrl: database.databaseUrl,
      dataDir: database.dataDir,
      logger,
      pgvector: false,
    });
    try {
      const applied = await migrateUp(db, logger);
      assert.ok(
        applied.some((name) => name.endsWith('-pgvector.ts')),
        applied.join(', '),
      );
      assert.equal(db.vector, false);
      // What a migration adding, say, passage embeddings does: its table, and the declared column.
      await db.sequelize.query('CREATE TABLE passages (id integer PRIMARY KEY, body text NOT NULL)');
      await declareVectorColumn(db.sequelize, { table: 'passages', column: 'embedding', dimensions: 3 });
      const status = await convergeVectorSchema(db.sequelize, logger);
      assert.deepEqual(status, {
        extension: 'absent',
        state: 'unavailable',
        pending: ['passages.embedding', 'resource_passages.embedding'],
      });
      const [columns] = await db.sequelize.query(
        "SELECT 1 FROM information_schema.columns WHERE table_name = 'passages' AND column_name = 'embedding'",
      );
      assert.equal(columns.length, 0);
    } finally {
      await db.close();
    }

    if (embedded) return; // PGlite goes on in the next test, with pgvector.
    const t = await startTestApp({ database });
    try {
      const health = await t.http.get('/health').expect(200);
      assert.equal(health.body.vector, false);
      assert.deepEqual(health.body.vectorSchema, {
        extension: 'absent',
        state: 'unavailable',
        pending: ['passages.embedding', 'resource_passages.embedding'],
      });
      assert.equal(health.body.search, 'keyword');
    } finally {
      await t.close();
    }
  });

  if (embedded) {
    it('when the same database starts again with pgvector, then the column and its index converge and search is semantic', async () => {
      const t = await startTestApp({ database });
      try {
        const health = await t.http.get('/health').expect(200);
        assert.equal(health.body.vector, true);
        assert.deepEqual(health.body.vectorSchema, { extension: 'installed', state: 'ready', pending: [] });
        assert.equal(health.body.search, 'semantic');
        const column = await t.db.sequelize.query<{ type: string }>(
          "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'passages'::regclass AND attname = 'embedding'",
          { plain: true, type: QueryTypes.SELECT },
        );
        assert.equal(column?.type, 'vector(3)');
        const index = await t.db.sequelize.query<{ def: string }>(
          "SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'passages_embedding_hnsw_idx'",
          {
            plain: true,
            type: QueryTypes.SELECT,
          },
        );
        assert.match(index?.def ?? '', /USING hnsw \(embedding vector_cosine_ops\)/);
        await t.db.sequelize.query("INSERT INTO passages VALUES (1, 'north', '[0,1,0]'), (2, 'east', '[1,0,0]')");
        const nearest = await t.db.sequelize.query<{ body: string }>(
          "SELECT body FROM passages ORDER BY embedding <=> '[0.1,0.9,0]' LIMIT 1",
          {
            plain: true,
            type: QueryTypes.SELECT,
          },
        );
        assert.equal(nearest?.body, 'north');
        // Idempotent: converging again changes nothing.
        assert.deepEqual(await convergeVectorSchema(t.db.sequelize, logger), {
          extension: 'installed',
          state: 'ready',
          pending: [],
        });
      } finally {
        await t.close();
      }
    });

    it('when the extension is installed but a declared column is not there yet, then /health says pending until a start converges it', async () => {
      const t = await startTestApp();
      try {
        await t.db.sequelize.query('CREATE TABLE chunks (id integer PRIMARY KEY)');
        await declareVectorColumn(t.db.sequelize, {
          table: 'chunks',
          column: 'embedding',
          dimensions: 4,
          distance: 'l2',
        });
        const health = await t.http.get('/health').expect(200);
        assert.deepEqual(health.body.vectorSchema, {
          extension: 'installed',
          state: 'pending',
          pending: ['chunks.embedding'],
        });
        assert.equal(health.body.search, 'semantic'); // this process decided at start; the new column is not used yet
        assert.equal((await convergeVectorSchema(t.db.sequelize, logger)).state, 'ready');
        assert.deepEqual((await inspectVectorSchema(t.db.sequelize)).pending, []);
      } finally {
        await t.close();
      }
    });
  }
});
