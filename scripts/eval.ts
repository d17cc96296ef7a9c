// `npm run eval`: measures the library chat on the evaluation set (scripts/eval-set.ts) in an
// in-memory PGlite, once per retrieval setup: USE-lite with pgvector (hybrid); an OpenAI-compatible
// /embeddings provider when EMBEDDINGS_PROVIDER=openai (and EMBEDDINGS_URL, EMBEDDINGS_API_KEY,
// EMBEDDINGS_MODEL) are set, as the service reads them; and keyword-only (PGlite without pgvector).
// Prints, per setup:
//   recall@5       the answering page is among the first five retrieved passages (answerable questions)
//   cited page     the answer's first source is the answering page (search mode, as the fallback answers;
//                  split into questions with the page's words and paraphrased ones)
//   abstains       unanswerable questions get "no answer" and no sources
// Targets: recall@5 >= 0.9, cited page >= 0.9 (>= 0.8 paraphrased), abstains >= 0.9.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { resolveReader } from '../src/modules/library/resource.access.ts';
import type { Actor } from '../src/shared/access/actor.ts';
import { openDatabase } from '../src/shared/database.ts';
import { createLogger } from '../src/shared/logger.ts';
import { migrateUp } from '../src/shared/migrator.ts';
import { buildDocument } from '../tests/factories/passages.ts';
import { evalDocuments, evalQuestions } from './eval-set.ts';

interface Score {
  setup: string;
  recallAt5: number;
  citedPage: number;
  citedPageDirect: number;
  citedPageParaphrased: number;
  abstains: number;
  misses: string[];
}

const ratio = (hits: number, total: number) => (total ? hits / total : 1);

async function evaluate(setup: string, pgvector: boolean, embeddings: Record<string, string> = {}): Promise<Score> {
  const logger = createLogger('silent');
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    APP_SECRET: 'eval-secret-eval-secret-eval-secret-0123',
    DATA_DIR: 'memory://',
    ANTHROPIC_API_KEY: '',
    ...embeddings,
  });
  const db = await openDatabase({ dataDir: 'memory://', logger, pgvector });
  await migrateUp(db, logger);
  const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
  try {
    const organization = await container.models.Organization.create({
      name: 'Eval Guild',
      slug: `eval-${randomUUID().slice(0, 8)}`,
      plan: 'standard',
    });
    const ids = new Map<string, string>();
    for (const document of evalDocuments) {
      const built = await buildDocument({ sequelize: db.sequelize, embedder: container.embedder }, organization.id, {
        name: document.name,
        pages: document.pages,
      });
      ids.set(document.name, built.resourceId);
    }
    const actor: Actor = {
      type: 'user',
      id: randomUUID(),
      organizationId: organization.id,
      role: 'ROLE_CLIENT_ADMIN',
      mfaVerified: false,
    };
    const reader = await resolveReader(container.sql, actor);
    const chat = container.services.chat;
    let recall = 0;
    let answerable = 0;
    const cited = { direct: [0, 0], paraphrased: [0, 0] };
    let abstained = 0;
    let unanswerable = 0;
    const misses: string[] = [];
    for (const item of evalQuestions) {
      const answer = await chat.ask(actor, { query: item.question });
      if (process.env.EVAL_VERBOSE) {
        const top = (await chat.retrieval.retrieve(reader, { query: item.question, limit: 8 })).passages;
        const expected = item.expect ? ids.get(item.expect.document) : undefined;
        const rank = top.findIndex((p) => p.resourceId === expected && p.pageNumber === item.expect?.page);
        const best = top.reduce((m, p) => Math.max(m, p.similarity ?? 0), 0);
        const cov = top.reduce((m, p) => Math.max(m, p.coverage), 0);
        const exp = rank >= 0 ? top[rank]! : undefined;
        console.log(
          `${item.kind.padEnd(13)} conf=${answer.confidence.toFixed(2)} bestSim=${best.toFixed(2)} bestCov=${cov.toFixed(2)} rank=${rank} expSim=${exp?.similarity?.toFixed(2)} expCov=${exp?.coverage.toFixed(2)} ${item.question}`,
        );
      }
      if (!item.expect) {
        unanswerable++;
        if (answer.sources.length === 0) abstained++;
        else misses.push(`answered (${answer.confidence}): ${item.question}`);
        continue;
      }
      answerable++;
      const resourceId = ids.get(item.expect.document);
      const retrieved = await chat.retrieval.retrieve(reader, { query: item.question, limit: 5 });
      if (retrieved.passages.some((p) => p.resourceId === resourceId && p.pageNumber === item.expect!.page)) recall++;
      else misses.push(`not in top 5: ${item.question}`);
      const first = answer.sources[0];
      const right = first?.resourceId === resourceId && first?.pageNumber === item.expect.page;
      const bucket = cited[item.kind as 'direct' | 'paraphrased'];
      bucket[1]++;
      if (right) bucket[0]++;
      else
        misses.push(
          `cited ${first ? `${first.resourceName} p${first.pageNumber}` : 'nothing'} (${answer.confidence}) for: ${item.question}`,
        );
    }
    return {
      setup,
      recallAt5: ratio(recall, answerable),
      citedPage: ratio(cited.direct[0]! + cited.paraphrased[0]!, cited.direct[1]! + cited.paraphrased[1]!),
      citedPageDirect: ratio(cited.direct[0]!, cited.direct[1]!),
      citedPageParaphrased: ratio(cited.paraphrased[0]!, cited.paraphrased[1]!),
      abstains: ratio(abstained, unanswerable),
      misses,
    };
  } finally {
    await container.close();
    await db.close();
  }
}

const pct = (value: number) => value.toFixed(2);

async function main(): Promise<void> {
  const counts = { direct: 0, paraphrased: 0, unanswerable: 0 };
  for (const q of evalQuestions) counts[q.kind]++;
  console.log(
    `evaluation set: ${evalDocuments.length} documents, ${evalDocuments.reduce((n, d) => n + d.pages.length, 0)} pages; questions: ${counts.direct} direct, ${counts.paraphrased} paraphrased, ${counts.unanswerable} unanswerable`,
  );
  const scores = [await evaluate('use-lite-512 + pgvector (hybrid)', true)];
  // a configured OpenAI-compatible /embeddings provider is measured too (the same variables as the service)
  const provider = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name.startsWith('EMBEDDINGS_')),
  ) as Record<string, string>;
  if (provider.EMBEDDINGS_PROVIDER === 'openai')
    scores.push(
      await evaluate(`${provider.EMBEDDINGS_MODEL ?? 'text-embedding-3-small'} + pgvector (hybrid)`, true, provider),
    );
  if (process.env.EVAL_ONLY !== 'hybrid') scores.push(await evaluate('keyword-only (no pgvector)', false));
  console.log('\nsetup                                   recall@5  cited page  (direct  paraphrased)  abstains');
  for (const s of scores) {
    console.log(
      `${s.setup.padEnd(40)}${pct(s.recallAt5).padStart(8)}${pct(s.citedPage).padStart(12)}${pct(s.citedPageDirect).padStart(10)}${pct(s.citedPageParaphrased).padStart(13)}${pct(s.abstains).padStart(11)}`,
    );
  }
  console.log('targets                                    0.90        0.90                  0.80        0.90');
  for (const s of scores) {
    if (!s.misses.length) continue;
    console.log(`\nmisses, ${s.setup}:`);
    for (const miss of s.misses) console.log(`  - ${miss}`);
  }
}

await main();
