// `npm run eval`: measures the library chat's search mode (the fallback path; Claude is not evaluated,
// only a stand-in is available offline) on the evaluation set (scripts/eval-set.ts) in an in-memory
// PGlite, once per retrieval setup: USE-lite with pgvector (hybrid); an OpenAI-compatible /embeddings
// provider when EMBEDDINGS_PROVIDER=openai (and EMBEDDINGS_URL, EMBEDDINGS_API_KEY, EMBEDDINGS_MODEL) are
// set, as the service reads them; and keyword-only (PGlite without pgvector). The demo guides are written
// as passages; the other documents are real files read by the ingestion's extractors and splitter.
//
// The set is split by document: every threshold and weight is fitted on the development half
// (`npm run eval -- --fit` prints the confidence models to paste into src/modules/chat/chat.evidence.ts),
// the test half is held back. Prints, per setup and half:
//   recall@5       the answering page is among the first five retrieved passages (answerable questions)
//   right page     the answering page is among the answer's sources (direct and paraphrased apart)
//   abstains       unanswerable questions get "no answer" and no sources (on-topic and off-topic apart)
//   ECE            expected calibration error of the confidence, read as the probability that the page the
//                  answer leads with answers the question; with a reliability table (10 buckets)
// Targets on the test half: right page >= 0.95 direct, >= 0.8 paraphrased; abstains >= 0.9; ECE <= 0.1.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Sequelize } from 'sequelize';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { extractDocument } from '../src/integrations/documents/extraction.ts';
import { toVectorLiteral, type Embedder } from '../src/integrations/embeddings/embedder.ts';
import {
  ANSWER_MODELS,
  answerConfidence,
  answerThreshold,
  featureVector,
  type AnswerFeatures,
} from '../src/modules/chat/chat.evidence.ts';
import { embeddingInput } from '../src/modules/ingestion/ingestion.pipeline.ts';
import { splitIntoPassages } from '../src/modules/ingestion/passage.splitter.ts';
import { resolveReader } from '../src/modules/library/resource.access.ts';
import type { Actor } from '../src/shared/access/actor.ts';
import { openDatabase } from '../src/shared/database.ts';
import { createLogger } from '../src/shared/logger.ts';
import { migrateUp } from '../src/shared/migrator.ts';
import { buildDocument } from '../tests/factories/passages.ts';
import { runningTitles, type EvalFile } from './eval-documents.ts';
import { evalDocuments, evalFiles, evalQuestions, type EvalQuestion } from './eval-set.ts';

interface Outcome {
  item: EvalQuestion;
  confidence: number;
  answered: boolean;
  /** The expected page is among the sources. */
  citedRight: boolean;
  /** The expected page is among the pages a search-mode answer cites, answered or not. */
  pagesRight: boolean;
  /** The lead sentence's page is the expected one (what the confidence predicts). */
  leadRight: boolean;
  inTop5: boolean;
  features: AnswerFeatures | null;
  /** The answer's quoted sentences include a page label or a running title. */
  quotesFurniture: boolean;
  cited: string;
  retrieved: string;
}

const ratio = (hits: number, total: number) => (total ? hits / total : Number.NaN);
const args = new Set(process.argv.slice(2));

/** A real file through the ingestion's extractor and splitter, written as the pipeline writes passages. */
async function ingestFile(
  deps: { sequelize: Sequelize; embedder: Embedder; vectors: boolean },
  organizationId: string,
  file: EvalFile,
): Promise<string> {
  const { sequelize, embedder } = deps;
  const extraction = await extractDocument(file.format, await file.build());
  const passages = splitIntoPassages(extraction.units);
  const resourceId = randomUUID();
  const versionId = randomUUID();
  await sequelize.query(
    `INSERT INTO resources (id, organization_id, name, type, format, access_level, status, published_at)
     VALUES ($1, $2, $3, 'document', $4, 'public', 'published', now())`,
    { bind: [resourceId, organizationId, file.name, file.format] },
  );
  await sequelize.query(
    `INSERT INTO resource_versions (id, organization_id, resource_id, version, storage_key, file_name, content_type, format, size_bytes, sha256)
     VALUES ($1, $2, $3, 1, $4, $5, 'application/octet-stream', $6, 1, $7)`,
    {
      bind: [
        versionId,
        organizationId,
        resourceId,
        `eval/${resourceId}`,
        `${file.name}.${file.format}`,
        file.format,
        resourceId.replace(/-/g, '').padEnd(64, '0'),
      ],
    },
  );
  const vectors = deps.vectors
    ? await embedder.embed(passages.map((p) => embeddingInput({ content: p.text, heading_path: p.headingPath })))
    : [];
  await sequelize.query(
    `INSERT INTO resource_passages (organization_id, resource_id, version_id, ordinal, page_number, location_kind, heading_path, content, embedding_model${deps.vectors ? ', embedding' : ''})
     SELECT $1, $2, $3, o - 1, page, kind, heading, content, ${deps.vectors ? '$9, vec::vector' : 'NULL'}
       FROM unnest($4::int[], $5::text[], $6::text[], $7::text[]${deps.vectors ? ', $8::text[]' : ''}) WITH ORDINALITY AS x(page, kind, heading, content${deps.vectors ? ', vec' : ''}, o)`,
    {
      bind: [
        organizationId,
        resourceId,
        versionId,
        passages.map((p) => p.pageNumber),
        passages.map((p) => p.locationKind),
        passages.map((p) => p.headingPath),
        passages.map((p) => p.text),
        ...(deps.vectors ? [vectors.map((v) => toVectorLiteral(v)), embedder.model] : []),
      ],
    },
  );
  return resourceId;
}

async function evaluate(setup: string, pgvector: boolean, embeddings: Record<string, string> = {}): Promise<Outcome[]> {
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
    const vectors = pgvector && (await container.services.chat.retrieval.vectorAvailable());
    for (const file of evalFiles)
      ids.set(
        file.name,
        await ingestFile({ sequelize: db.sequelize, embedder: container.embedder, vectors }, organization.id, file),
      );
    const names = new Map([...ids].map(([name, id]) => [id, name]));
    // a client admin: every published document of the set is open to them
    const actor: Actor = {
      type: 'user',
      id: randomUUID(),
      organizationId: organization.id,
      role: 'ROLE_CLIENT_ADMIN',
      mfaVerified: false,
    };
    const reader = await resolveReader(container.sql, actor);
    const chat = container.services.chat;
    const outcomes: Outcome[] = [];
    for (const item of evalQuestions) {
      const answer = await chat.ask(actor, { query: item.question });
      const expected = item.expect ? { id: ids.get(item.expect.document), page: item.expect.page } : undefined;
      const top = (await chat.retrieval.retrieve(reader, { query: item.question, limit: 5 })).passages;
      const at = (p: { resourceId: string; pageNumber: number }) =>
        !!expected && p.resourceId === expected.id && p.pageNumber === expected.page;
      const lead = answer.diagnostics?.lead;
      outcomes.push({
        item,
        confidence: answer.confidence,
        answered: answer.sources.length > 0,
        citedRight: answer.sources.some(at),
        pagesRight: (answer.diagnostics?.pages ?? []).some(at),
        leadRight: !!lead && at(lead),
        inTop5: top.some(at),
        features: answer.diagnostics?.features ?? null,
        quotesFurniture:
          answer.sources.length > 0 &&
          (/\bPage \d+ of \d+\b/.test(answer.answer) ||
            [...runningTitles].some((title) => answer.answer.replace(/ \([^()]*, page \d+\)/g, '').includes(title))),
        cited: answer.sources.map((s) => `${s.resourceName} p${s.pageNumber}`).join('; ') || 'nothing',
        retrieved: top
          .slice(0, 3)
          .map((p) => `${names.get(p.resourceId)} p${p.pageNumber}`)
          .join('; '),
      });
      if (process.env.EVAL_VERBOSE)
        console.log(
          `${setup.slice(0, 8)} ${item.split} ${item.kind.padEnd(12)} conf=${answer.confidence.toFixed(2)} lead=${lead ? `${names.get(lead.resourceId)} p${lead.pageNumber}` : '-'} ${JSON.stringify(answer.diagnostics?.features)} ${item.question}`,
        );
    }
    return outcomes;
  } finally {
    await container.close();
    await db.close();
  }
}

/** L2-regularised logistic regression by gradient descent (features are all 0..1: no scaling needed). */
function fitLogistic(rows: Array<{ x: number[]; y: number }>, l2 = 0.01, steps = 20000, rate = 0.5) {
  const d = rows[0]?.x.length ?? 0;
  let bias = 0;
  const w = new Array<number>(d).fill(0);
  for (let step = 0; step < steps; step++) {
    let gb = 0;
    const gw = new Array<number>(d).fill(0);
    for (const { x, y } of rows) {
      const p = 1 / (1 + Math.exp(-(bias + x.reduce((s, v, i) => s + v * w[i]!, 0))));
      gb += p - y;
      for (const [i, v] of x.entries()) gw[i]! += (p - y) * v;
    }
    bias -= (rate * gb) / rows.length;
    for (let i = 0; i < d; i++) w[i]! -= rate * (gw[i]! / rows.length + l2 * w[i]!);
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return { bias: round(bias), weights: w.map(round) };
}

/**
 * Pool-adjacent-violators isotonic regression of outcomes on probabilities: the (mean probability,
 * observed share) of each pooled block, shrunk towards the overall share by one pseudo-observation so
 * a small block does not claim certainty.
 */
function isotonic(points: Array<{ p: number; y: number }>): Array<[number, number]> {
  const sorted = [...points].sort((a, b) => a.p - b.p);
  const overall = sorted.reduce((s, x) => s + x.y, 0) / Math.max(1, sorted.length);
  const blocks: Array<{ p: number; y: number; n: number }> = [];
  for (const { p, y } of sorted) {
    blocks.push({ p, y, n: 1 });
    while (blocks.length > 1 && blocks.at(-2)!.y / blocks.at(-2)!.n >= blocks.at(-1)!.y / blocks.at(-1)!.n) {
      const last = blocks.pop()!;
      const prev = blocks.at(-1)!;
      prev.p += last.p;
      prev.y += last.y;
      prev.n += last.n;
    }
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return blocks.map((b) => [round(b.p / b.n), round((b.y + overall) / (b.n + 1))]);
}

const fmt = (value: number) => (Number.isNaN(value) ? '   -' : value.toFixed(2));

function reliability(outcomes: Outcome[]): { table: string[]; ece: number } {
  const buckets = Array.from({ length: 10 }, () => ({ n: 0, conf: 0, right: 0 }));
  for (const o of outcomes) {
    const b = buckets[Math.min(9, Math.floor(o.confidence * 10))]!;
    b.n++;
    b.conf += o.confidence;
    b.right += o.leadRight ? 1 : 0;
  }
  let ece = 0;
  const table = ['    confidence   n   mean conf   accuracy'];
  buckets.forEach((b, i) => {
    if (!b.n) return;
    ece += (b.n / outcomes.length) * Math.abs(b.conf / b.n - b.right / b.n);
    table.push(
      `    ${(i / 10).toFixed(1)}-${((i + 1) / 10).toFixed(1)}  ${String(b.n).padStart(4)}   ${(b.conf / b.n).toFixed(2).padStart(9)}   ${(b.right / b.n).toFixed(2).padStart(8)}`,
    );
  });
  return { table, ece };
}

function report(
  setup: string,
  outcomes: Outcome[],
  keywordOnly: boolean,
  threshold = answerThreshold(keywordOnly),
): void {
  console.log(`\n${setup}`);
  console.log(
    `  half   recall@5  right page: direct  paraphrased   abstains: on-topic  off-topic   ECE    (answered at >= ${threshold})`,
  );
  for (const split of ['dev', 'test'] as const) {
    const half = outcomes.filter((o) => o.item.split === split);
    const of = (kind: EvalQuestion['kind']) => half.filter((o) => o.item.kind === kind);
    const answerable = half.filter((o) => o.item.expect);
    const right = (kind: EvalQuestion['kind']) => ratio(of(kind).filter((o) => o.citedRight).length, of(kind).length);
    const abstains = (kind: EvalQuestion['kind']) => ratio(of(kind).filter((o) => !o.answered).length, of(kind).length);
    const { ece } = reliability(half);
    console.log(
      `  ${split.padEnd(5)}${fmt(ratio(answerable.filter((o) => o.inTop5).length, answerable.length)).padStart(10)}${fmt(right('direct')).padStart(20)}${fmt(right('paraphrased')).padStart(13)}${fmt(abstains('unanswerable')).padStart(20)}${fmt(abstains('off-topic')).padStart(11)}${ece.toFixed(3).padStart(7)}`,
    );
  }
  console.log('  target (test)               0.95         0.80                0.90       0.90   0.10');
  for (const split of ['dev', 'test'] as const) {
    const lead = (kind: EvalQuestion['kind']) => {
      const of = outcomes.filter((o) => o.item.split === split && o.item.kind === kind);
      return fmt(ratio(of.filter((o) => o.leadRight).length, of.length));
    };
    console.log(
      `  ${split}: the page the answer would lead with, answered or not: direct ${lead('direct')}, paraphrased ${lead('paraphrased')}`,
    );
  }
  for (const split of ['dev', 'test'] as const) {
    console.log(`  reliability, ${split} half:`);
    for (const line of reliability(outcomes.filter((o) => o.item.split === split)).table) console.log(line);
  }
  console.log(
    `  answers quoting a page label or a running title: ${outcomes.filter((o) => o.quotesFurniture).length} of ${outcomes.filter((o) => o.answered).length}`,
  );
  const misses = outcomes.filter((o) => o.item.split === 'test' && (o.item.expect ? !o.citedRight : o.answered));
  if (misses.length) console.log('  misses, test half:');
  for (const o of misses)
    console.log(
      `  - [${o.item.kind}] ${o.item.question} -> ${o.answered ? `cited ${o.cited}` : 'no answer'} (confidence ${o.confidence}); retrieved: ${o.retrieved}; features ${JSON.stringify(o.features)}`,
    );
}

async function main(): Promise<void> {
  const count = (split: string, kind: string) =>
    evalQuestions.filter((q) => q.split === split && q.kind === kind).length;
  const pages = evalDocuments.reduce((n, d) => n + d.pages.length, 0);
  console.log(
    `evaluation set: ${evalDocuments.length + evalFiles.length} documents (${evalDocuments.length} demo guides of ${pages} pages, ${evalFiles.length} files: ${evalFiles.map((f) => `${f.kind} (${f.format})`).join(', ')}); ${evalQuestions.length} questions`,
  );
  for (const split of ['dev', 'test'])
    console.log(
      `  ${split}: ${[...evalDocuments.map((d) => ({ name: d.name, split: 'dev' })), ...evalFiles].filter((d) => d.split === split).length} documents; ${count(split, 'direct')} direct, ${count(split, 'paraphrased')} paraphrased, ${count(split, 'unanswerable')} on-topic unanswerable, ${count(split, 'off-topic')} off-topic`,
    );
  const setups: Array<{ name: string; outcomes: Outcome[]; keywordOnly: boolean }> = [];
  if (process.env.EVAL_ONLY !== 'keyword')
    setups.push({
      name: 'use-lite-512 + pgvector (hybrid)',
      outcomes: await evaluate('hybrid', true),
      keywordOnly: false,
    });
  const provider = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name.startsWith('EMBEDDINGS_')),
  ) as Record<string, string>;
  if (provider.EMBEDDINGS_PROVIDER === 'openai')
    setups.push({
      name: `${provider.EMBEDDINGS_MODEL ?? 'text-embedding-3-small'} + pgvector (hybrid)`,
      outcomes: await evaluate('openai', true, provider),
      keywordOnly: false,
    });
  if (process.env.EVAL_ONLY !== 'hybrid')
    setups.push({
      name: 'keyword-only (no pgvector)',
      outcomes: await evaluate('keyword', false),
      keywordOnly: true,
    });
  // EVAL_DUMP=file: every outcome with its features, to study the development half offline
  if (process.env.EVAL_DUMP) writeFileSync(process.env.EVAL_DUMP, JSON.stringify(setups, null, 1));
  if (!args.has('--fit')) for (const setup of setups) report(setup.name, setup.outcomes, setup.keywordOnly);
  else {
    console.log('\nconfidence models fitted on the development half (paste into ANSWER_MODELS):');
    const fitted: Array<{ name: string; outcomes: Outcome[]; keywordOnly: boolean; threshold: number }> = [];
    for (const setup of setups) {
      const rows = setup.outcomes
        .filter((o) => o.item.split === 'dev' && o.features)
        .map((o) => ({ x: featureVector(o.features!, setup.keywordOnly), y: o.leadRight ? 1 : 0 }));
      const logistic = fitLogistic(rows);
      // calibration from out-of-fold probabilities: each development document's questions (and its share
      // of the off-topic ones) scored by a regression fitted without them, so the isotonic map learns how
      // the model does on documents it was not fitted on (probabilities of the rows a regression was
      // fitted on are optimistic, and a chat meets documents it was never fitted on)
      const devOutcomes = setup.outcomes.filter((o) => o.item.split === 'dev');
      const documents = [...new Set(devOutcomes.flatMap((o) => (o.item.document ? [o.item.document] : [])))];
      const fold = (o: Outcome, i: number) => o.item.document ?? documents[i % documents.length]!;
      const outOfFold = devOutcomes.map((o, i) => {
        if (!o.features) return { p: 0, y: o.leadRight ? 1 : 0 };
        const others = devOutcomes
          .filter((other, j) => other.features && fold(other, j) !== fold(o, i))
          .map((other) => ({ x: featureVector(other.features!, setup.keywordOnly), y: other.leadRight ? 1 : 0 }));
        const partial = fitLogistic(others);
        const p = answerConfidence(o.features, setup.keywordOnly, { hybrid: partial, keywordOnly: partial });
        return { p, y: o.leadRight ? 1 : 0 };
      });
      const model = { ...logistic, calibration: isotonic(outOfFold) };
      // the answering threshold: the lowest at which the development half abstains on at least 0.9 of
      // its unanswerable questions, on-topic and off-topic each (the fitted model's confidences)
      const dev = setup.outcomes.filter((o) => o.item.split === 'dev');
      const confidence = (o: Outcome) =>
        o.features ? answerConfidence(o.features, setup.keywordOnly, { hybrid: model, keywordOnly: model }) : 0;
      let threshold = 0.95;
      // whole hundredths (a running sum of 0.01 drifts above them, and a confidence equal to the printed
      // threshold then abstained here but answers in the chat)
      for (let k = 30; k <= 95; k++) {
        const t = k / 100;
        const abstains = (kind: EvalQuestion['kind']) => {
          const of = dev.filter((o) => o.item.kind === kind);
          return of.filter((o) => confidence(o) < t).length / of.length;
        };
        if (abstains('unanswerable') >= 0.9 && abstains('off-topic') >= 0.9) {
          threshold = t;
          break;
        }
      }
      const answerable = dev.filter((o) => o.item.expect);
      const right = answerable.filter((o) => o.leadRight && confidence(o) >= threshold).length / answerable.length;
      console.log(`  ${setup.keywordOnly ? 'keywordOnly' : 'hybrid'}: ${JSON.stringify({ ...model, threshold })}`);
      console.log(`    dev answers right ${right.toFixed(2)} of the answerable`);
      // both halves as the chat will score them once these models are pasted in: every outcome keeps
      // its features and the pages its search-mode answer cites, answered or not
      const rescored = setup.outcomes.map((o) => {
        const c = confidence(o);
        const answered = c >= threshold;
        return { ...o, confidence: c, answered, citedRight: answered && o.pagesRight };
      });
      fitted.push({
        name: `${setup.name}, with the models just fitted`,
        outcomes: rescored,
        keywordOnly: setup.keywordOnly,
        threshold,
      });
    }
    console.log(`  (current: ${JSON.stringify(ANSWER_MODELS)})`);
    for (const setup of fitted) report(setup.name, setup.outcomes, setup.keywordOnly, setup.threshold);
  }
}

await main();
