// Word tables: a row's facts stay together through extraction, the splitter and the search-mode answer
// ("Chair: Helen Marsh" on the line of its committee), instead of a line break after every cell. On
// Word files generated with the docx library, as Word writes them. No database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { extractDocument } from '../../src/integrations/documents/extraction.ts';
import { pickSentences } from '../../src/modules/chat/extractive-answer.ts';
import type { RetrievedPassage } from '../../src/modules/chat/passage-retrieval.repository.ts';
import { splitIntoPassages } from '../../src/modules/ingestion/passage.splitter.ts';

const table = (rows: string[][]) =>
  new Table({
    rows: rows.map(
      (cells) =>
        new TableRow({
          children: cells.map(
            (text) => new TableCell({ children: [new Paragraph({ children: [new TextRun(text)] })] }),
          ),
        }),
    ),
  });

async function governanceDocx(): Promise<Buffer> {
  const document = new Document({
    sections: [
      {
        children: [
          new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Board committees')] }),
          new Paragraph({ children: [new TextRun('Each standing committee is chaired by a trustee.')] }),
          table([
            ['Committee', 'Chair', 'Term ends'],
            ['Audit and Risk', 'Helen Marsh', '2027'],
            ['Nominations', 'Samuel Adeyemi', '2026'],
          ]),
          new Paragraph({ children: [new TextRun('Spending limits follow.')] }),
          // no row of labels: figures in the first row
          table([
            ['50,000', 'Chief executive'],
            ['250,000', 'Finance committee'],
          ]),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}

const asPassage = (text: string, headingPath: string | null): RetrievedPassage => ({
  id: 'p1',
  resourceId: 'r1',
  resourceName: 'Governance Handbook',
  pageNumber: 1,
  locationKind: 'section',
  headingPath,
  content: text,
  keywordRank: 1,
  vectorRank: null,
  similarity: null,
  coverage: 0.5,
  score: 0.03,
});

describe('Word tables', () => {
  it('when a table has a row of labels, then each row is one line reading "Label: value", ending as a sentence', async () => {
    const extraction = await extractDocument('docx', await governanceDocx());
    const lines = extraction.units.flatMap((unit) => unit.text.split('\n'));
    assert.ok(lines.includes('Committee: Audit and Risk; Chair: Helen Marsh; Term ends: 2027.'), lines.join('\n'));
    assert.ok(lines.includes('Committee: Nominations; Chair: Samuel Adeyemi; Term ends: 2026.'), lines.join('\n'));
    // no cell on a line of its own, and the label row is not repeated as a row of its own
    assert.ok(!lines.includes('Helen Marsh'));
    assert.ok(!lines.some((line) => /^Committee;? ?\|?\s*Chair/.test(line)));
  });

  it('when a table has no row of labels, then its cells are joined on one line per row', async () => {
    const extraction = await extractDocument('docx', await governanceDocx());
    const lines = extraction.units.flatMap((unit) => unit.text.split('\n'));
    assert.ok(lines.includes('50,000; Chief executive.'), lines.join('\n'));
    assert.ok(lines.includes('250,000; Finance committee.'), lines.join('\n'));
  });

  it('when a question asks for a fact of a table row, then the passage keeps the row and the search-mode answer quotes it whole', async () => {
    const extraction = await extractDocument('docx', await governanceDocx());
    const passages = splitIntoPassages(extraction.units);
    const row = passages.find((p) => p.text.includes('Chair: Helen Marsh'));
    assert.ok(row, 'a passage holds the row');
    assert.match(row.text, /Committee: Audit and Risk; Chair: Helen Marsh; Term ends: 2027\./);
    const sentences = await pickSentences([asPassage(row.text, row.headingPath)], {
      query: 'Who chairs the Audit and Risk committee?',
      maxSentences: 1,
    });
    assert.equal(sentences[0]?.text, 'Committee: Audit and Risk; Chair: Helen Marsh; Term ends: 2027.');
  });
});
