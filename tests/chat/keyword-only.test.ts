// Without pgvector (PGlite started without the extension, like the machine's PostgreSQL server), the
// passages table has no vector column: retrieval runs keyword-only, the chat still answers in search
// mode and says so (`keywordOnly: true`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { resolveReader } from '../../src/modules/library/resource.access.ts';
import { openDatabase, type Database } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { migrateUp } from '../../src/shared/migrator.ts';
import { bearer, tokenFor } from '../factories/index.ts';
import { createTestDatabase, type TestDatabase } from '../setup/database.ts';
import type { TestApp } from '../setup/test-app.ts';
import { buildLibrary, type LibraryFixture } from './library-fixture.ts';

describe('library chat without pgvector', () => {
  let database: TestDatabase;
  let db: Database;
  let container: Container;
  let lib: LibraryFixture;
  let http: ReturnType<typeof supertest>;

  before(async () => {
    // not from the template (which has pgvector); on a PostgreSQL server there is no pgvector anyway
    database = await createTestDatabase({ template: false });
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      APP_SECRET: 'test-secret-test-secret-test-secret-0123',
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
      DATA_DIR: database.dataDir,
    });
    const logger = createLogger('silent');
    db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, pgvector: false });
    await migrateUp(db, logger);
    container = createContainer({ config, logger, db, appSecret: config.appSecret! });
    const app = createApp(container);
    http = supertest(app);
    lib = await buildLibrary({ app, container, config, db, http } as unknown as TestApp);
  });
  after(async () => {
    await container?.close();
    await db?.close();
    await database?.drop();
  });

  it('when retrieving, then it is keyword-only and still filtered by access', async () => {
    const reader = await resolveReader(container.sql, lib.actor('member'));
    const result = await container.services.chat.retrieval.retrieve(reader, { query: 'refund of annual dues' });
    assert.equal(result.keywordOnly, true);
    assert.equal(result.passages[0]!.resourceId, lib.docs.handbook);
    assert.equal(result.passages[0]!.similarity, null);
    const premium = await container.services.chat.retrieval.retrieve(reader, { query: 'zircon survey median salary' });
    assert.ok(!premium.passages.some((p) => p.resourceId === lib.docs.premiumSurvey));
  });

  it('when a member asks, then the answer comes in search mode and says retrieval was keyword-only', async () => {
    const token = await tokenFor({ container }, lib.users.member);
    const res = await http
      .post('/api/resources/chat')
      .set(bearer(token))
      .send({ query: 'How long do I have to ask for a refund of my dues?' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.keywordOnly, true);
    assert.equal(res.body.mode, 'search');
    assert.match(res.body.answer, /30 days/);
    assert.equal(res.body.sources[0].pageNumber, 2);
  });
});
