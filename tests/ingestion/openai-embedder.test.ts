// The OpenAI-compatible embeddings provider against a local stand-in speaking the `/embeddings` protocol
// (request: model, input[], dimensions; response: data[{index, embedding}]), through the app's config,
// and an ingestion whose passages carry the provider's model name.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OpenAiEmbedder } from '../../src/integrations/embeddings/openai.embedder.ts';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { reembedPassages } from '../../src/modules/ingestion/reembed.job.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { makePdf } from '../support/documents.ts';
import { publishEvent, storageEnv, storeResource } from './library-fixtures.ts';

interface Received {
  authorization?: string;
  body: { model: string; input: string[]; dimensions: number };
}

/** A bag-of-hashed-words vector: deterministic, and texts sharing words point the same way. */
function vectorOf(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/\w+/g) ?? [])
    vector[createHash('sha1').update(word).digest().readUInt32BE(0) % dimensions]! += 1;
  return vector;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

describe('OpenAI-compatible embeddings provider', () => {
  let server: Server;
  let url: string;
  const received: Received[] = [];
  let failNext: { status: number; body: string } | null = null;
  let wrongDimensions = false;

  before(async () => {
    server = createServer(async (req, res) => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return res.writeHead(404).end();
      const body = (await readJson(req)) as Received['body'];
      received.push({ authorization: req.headers.authorization, body });
      if (failNext) {
        const { status, body: text } = failNext;
        failNext = null;
        return res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      }
      const dims = wrongDimensions ? 1536 : body.dimensions;
      // answered out of order on purpose: clients must use `index`
      const data = body.input
        .map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, dims) }))
        .reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when texts are embedded, then the provider gets the model, the inputs and 512 dimensions with the key, and unit vectors come back in input order', async () => {
    received.length = 0;
    const embedder = new OpenAiEmbedder({ url: `${url}/`, apiKey: 'sk-test', model: 'text-embedding-3-small' });
    assert.equal(embedder.model, 'openai:text-embedding-3-small@512');
    const vectors = await embedder.embed(['membership dues', 'conference travel']);
    assert.deepEqual(received[0], {
      authorization: 'Bearer sk-test',
      body: {
        model: 'text-embedding-3-small',
        input: ['membership dues', 'conference travel'],
        dimensions: 512,
        encoding_format: 'float',
      },
    });
    assert.equal(vectors.length, 2);
    for (const vector of vectors) {
      assert.equal(vector.length, 512);
      assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-9);
    }
    const expected = vectorOf('membership dues', 512);
    const norm = Math.hypot(...expected);
    assert.deepEqual(
      vectors[0],
      expected.map((x) => x / norm),
      "the first vector is the first input's",
    );
    assert.deepEqual(await embedder.embed([]), []);
  });

  it('when the provider fails or answers with the wrong dimension, then the error says so (the job retries)', async () => {
    const embedder = new OpenAiEmbedder({ url, model: 'm' });
    failNext = { status: 429, body: '{"error":{"message":"Rate limit reached"}}' };
    await assert.rejects(embedder.embed(['x']), /answered 429: .*Rate limit reached/);
    wrongDimensions = true;
    await assert.rejects(embedder.embed(['x']), /1536 dimensions, not 512/);
    wrongDimensions = false;
  });

  describe('configured for the app', () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({
        env: {
          ...storageEnv(),
          EMBEDDINGS_PROVIDER: 'openai',
          EMBEDDINGS_URL: url,
          EMBEDDINGS_API_KEY: 'sk-app',
          EMBEDDINGS_MODEL: 'text-embedding-3-small',
        },
      });
    });
    after(() => t.close());

    it('when EMBEDDINGS_PROVIDER=openai, then ingestion embeds through the provider and the passages carry its model; a model switch re-embeds them', async () => {
      assert.equal(t.container.embedder.model, 'openai:text-embedding-3-small@512');
      const organizationId = (await buildOrganization()).id;
      const { resourceId } = await storeResource(
        t,
        organizationId,
        await makePdf(['Dues are payable in January.', 'Travel grants open in March.']),
      );
      const jobs = jobHandlers(t.container);
      const context = { jobId: 'test', attempt: 0, logger: t.container.logger };
      received.length = 0;
      const eventId = await publishEvent(t, 'resource.published', resourceId);
      await jobs['domain-event.deliver']({ eventId, subscriber: 'ingestion.index' }, context);
      const { run_id } = (await t.container.sql.one<{ run_id: string }>(
        'SELECT run_id FROM resource_ingestions WHERE resource_id = $1',
        [resourceId],
      ))!;
      await jobs['ingestion.run']({ runId: run_id }, context);

      const vectors = (await t.container.sql.one<{ present: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'resource_passages' AND column_name = 'embedding') AS present",
      ))!.present;
      if (!vectors) {
        // a server without pgvector stores the passages for keyword search and never calls the provider
        assert.deepEqual(received, []);
        const stored = await t.container.sql.rows<{ page_number: number }>(
          'SELECT page_number FROM resource_passages WHERE resource_id = $1 ORDER BY ordinal',
          [resourceId],
        );
        assert.deepEqual(
          stored.map((p) => p.page_number),
          [1, 2],
        );
        return;
      }
      assert.ok(
        received.length >= 1 && received.every((r) => r.authorization === 'Bearer sk-app' && r.body.dimensions === 512),
      );
      const passages = await t.container.sql.rows<{
        page_number: number;
        embedding_model: string;
        has_vector: boolean;
      }>(
        'SELECT page_number, embedding_model, embedding IS NOT NULL AS has_vector FROM resource_passages WHERE resource_id = $1 ORDER BY ordinal',
        [resourceId],
      );
      assert.deepEqual(passages, [
        { page_number: 1, embedding_model: 'openai:text-embedding-3-small@512', has_vector: true },
        { page_number: 2, embedding_model: 'openai:text-embedding-3-small@512', has_vector: true },
      ]);

      // passages of the previous model (USE-lite) are re-embedded in the background by the new one
      await t.container.sql.query(
        `UPDATE resource_passages SET embedding_model = 'use-lite-512' WHERE resource_id = $1`,
        [resourceId],
      );
      received.length = 0;
      const count = await reembedPassages(
        {
          repository: t.container.services.ingestionRunner.repository,
          embedder: t.container.embedder,
          maxPassages: 10,
          batchSize: 8,
        },
        t.container.logger,
      );
      assert.equal(count, 2);
      assert.equal(received.length, 1);
      const models = await t.container.sql.rows<{ embedding_model: string }>(
        'SELECT DISTINCT embedding_model FROM resource_passages WHERE resource_id = $1',
        [resourceId],
      );
      assert.deepEqual(models, [{ embedding_model: 'openai:text-embedding-3-small@512' }]);
    });
  });

  describe('with the job workers running', () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({
        workers: true,
        env: {
          ...storageEnv(),
          EMBEDDINGS_PROVIDER: 'openai',
          EMBEDDINGS_URL: url,
          EMBEDDINGS_MODEL: 'text-embedding-3-small',
        },
      });
    });
    after(() => t.close());

    it('when a resource.published event commits, then the queue runs the subscriber and the ingestion job by itself and the status ends done', async () => {
      const organizationId = (await buildOrganization()).id;
      const admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
      const { resourceId } = await storeResource(
        t,
        organizationId,
        await makePdf(['Chapter charters renew every two years.']),
      );
      await publishEvent(t, 'resource.published', resourceId);
      let body: { status: string; passages: number } = { status: 'not_started', passages: 0 };
      for (let i = 0; i < 120 && body.status !== 'done'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        body = (await t.http.get(`/api/resources/${resourceId}/ingestion`).set(bearer(admin)).expect(200)).body;
      }
      assert.equal(body.status, 'done');
      assert.equal(body.passages, 1);
    });
  });
});
