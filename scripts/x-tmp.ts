import { PGlite } from '@electric-sql/pglite';
import { UseLiteEmbedder } from '../src/integrations/embeddings/use-lite.embedder.ts';
import { evalDocuments, evalQuestions } from './eval-set.ts';
const pg = new PGlite();
const lex = async (t: string) => (await pg.query<{ l: string }>(`SELECT lexeme AS l FROM unnest(to_tsvector('english', $1))`, [t])).rows.map((r) => r.l);
const e = new UseLiteEmbedder();
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const split = (t: string) => t.split(/(?<=\.)\s+/);
const variants: Record<string, (d: string, h: string, t: string) => string[]> = {
  base: (d, h, t) => [`${h}
${t}`],
  heading: (d, h, t) => [`${h}
${t}`, h],
  titleHeading: (d, h, t) => [`${h}
${t}`, `${d}: ${h}`],
  headingSentences: (d, h, t) => [`${h}
${t}`, h, ...split(t)],
};
const qv = await e.embed(evalQuestions.map((q) => q.question));
const qlex = await Promise.all(evalQuestions.map((q) => lex(q.question)));
const W = Number(process.env.W ?? 0.7);
for (const [name, make] of Object.entries(variants)) {
  const pages = await Promise.all(evalDocuments.flatMap((d) => d.pages.map(async (p, i) => ({ doc: d.name, page: i + 1, texts: make(d.name, p.heading, p.text), lex: new Set(await lex(`${p.heading}\n${p.text}`)) }))));
  const vecs = await Promise.all(pages.map((p) => e.embed(p.texts)));
  for (const agg of ['first', 'max']) {
    const hits = { direct: 0, paraphrased: 0 }; const ranks: number[] = []; const un: string[] = []; const par: string[] = [];
    evalQuestions.forEach((q, qi) => {
      const scored = pages.map((p, pi) => {
        const sims = vecs[pi]!.map((v) => dot(qv[qi]!, v));
        const s = agg === 'first' ? sims[0]! : Math.max(...sims);
        const cov = qlex[qi]!.length ? qlex[qi]!.filter((l) => p.lex.has(l)).length / qlex[qi]!.length : 0;
        return { p, s, cov, score: W * s + (1 - W) * cov };
      }).sort((a, b) => b.score - a.score);
      if (!q.expect) { un.push(scored[0]!.s.toFixed(2)); return; }
      const rank = scored.findIndex((s) => s.p.doc === q.expect!.document && s.p.page === q.expect!.page);
      if (rank === 0) hits[q.kind as 'direct']++;
      if (q.kind === 'paraphrased') { ranks.push(rank); par.push(scored[Math.max(rank, 0)]!.s.toFixed(2)); }
    });
    console.log(name.padEnd(19), agg.padEnd(6), JSON.stringify(hits), ranks.join(''), 'un', un.sort().join(' '), '| par', par.sort().join(' '));
  }
}
