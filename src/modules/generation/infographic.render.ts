// The infographic: a visual summary laid out in code as SVG (title, the statistics found in the text as
// big numbers, key takeaways, the numbered steps when the document has them, a bar chart when it has at
// least three comparable figures), rendered to PNG with sharp (libvips; DejaVu fonts). Every text in
// the SVG is escaped. The alt text says what the picture says.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { digestDocument, type DocumentDigest, type Figure } from './document-digest.ts';
import type { SourcePassage } from './source.repository.ts';

export interface InfographicSummary {
  title: string;
  statistics: Array<{ value: string; label: string }>;
  takeaways: string[];
  steps: string[];
  chart: { title: string; unit: Figure['unit']; bars: Array<{ label: string; value: number; display: string }> } | null;
}

const WIDTH = 1200;
const MARGIN = 60;
const FONT = 'DejaVu Sans, Verdana, Arial, sans-serif';
const COLORS = {
  ink: '#1f2933',
  muted: '#52606d',
  accent: '#0b6e4f',
  band: '#0b3d5c',
  card: '#eef4f8',
  bar: '#2a9d8f',
};

export const escapeXml = (text: string): string =>
  text
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

/** Greedy word wrap by an average glyph width (DejaVu Sans ~0.55 em). */
export function wrap(text: string, fontSize: number, width: number, maxLines = 3): string[] {
  const perLine = Math.max(8, Math.floor(width / (fontSize * 0.56)));
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if ((current ? `${current} ${word}` : word).length > perLine && current) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = `${kept[maxLines - 1]!.replace(/[\s,.;:]*$/, '')}…`;
    return kept;
  }
  return lines;
}

const textLines = (lines: string[], x: number, y: number, size: number, attrs: string, lineHeight = 1.3) =>
  lines
    .map(
      (line, i) =>
        `<text x="${x}" y="${Math.round(y + i * size * lineHeight)}" font-size="${size}" ${attrs}>${escapeXml(line)}</text>`,
    )
    .join('');

/**
 * A comparison worth a chart: three or more figures of one unit in one sentence ("events 45%, dues 30%
 * and sponsorship 25%"), else three or more of one unit across the document, each with its own label.
 */
function comparable(figures: Figure[]): InfographicSummary['chart'] {
  const chartOf = (candidates: Figure[]): InfographicSummary['chart'] => {
    for (const unit of ['percent', 'currency', 'count'] as const) {
      const seen = new Set<string>();
      const bars = candidates
        .filter((f) => f.unit === unit && f.amount > 0 && Number.isFinite(f.amount) && f.label)
        .filter((f) => (seen.has(f.label.toLowerCase()) ? false : (seen.add(f.label.toLowerCase()), true)))
        .slice(0, 6)
        .map((f) => ({ label: f.label, value: f.amount, display: f.value }));
      if (bars.length >= 3)
        return {
          title: unit === 'percent' ? 'Shares compared' : unit === 'currency' ? 'Amounts compared' : 'Figures compared',
          unit,
          bars,
        };
    }
    return null;
  };
  const bySentence = new Map<string, Figure[]>();
  for (const figure of figures) bySentence.set(figure.sentence, [...(bySentence.get(figure.sentence) ?? []), figure]);
  for (const group of bySentence.values()) {
    const chart = chartOf(group);
    if (chart) return chart;
  }
  return chartOf(figures);
}

export function summarize(digest: DocumentDigest): InfographicSummary {
  const seen = new Set<string>();
  // labelled figures first: a number nobody can place says little
  const statistics = [...digest.figures.filter((f) => f.label), ...digest.figures.filter((f) => !f.label)]
    .filter((f) => (seen.has(f.value) ? false : (seen.add(f.value), true)))
    .slice(0, 4)
    .map((f) => ({ value: f.value, label: f.label }));
  return {
    title: digest.title,
    statistics,
    takeaways: digest.takeaways.slice(0, 5),
    steps: digest.steps.slice(0, 6),
    chart: comparable(digest.figures),
  };
}

export function layoutSvg(summary: InfographicSummary, pages: number): string {
  const parts: string[] = [];
  const inner = WIDTH - 2 * MARGIN;
  const titleLines = wrap(summary.title, 44, inner, 2);
  const bandHeight = 90 + titleLines.length * 56;
  parts.push(`<rect x="0" y="0" width="${WIDTH}" height="${bandHeight}" fill="${COLORS.band}"/>`);
  parts.push(textLines(titleLines, MARGIN, 80, 44, `font-weight="bold" fill="#ffffff"`));
  parts.push(
    textLines(
      [`Visual summary of a ${pages}-page document · AI-generated`],
      MARGIN,
      bandHeight - 28,
      20,
      `fill="#d9e2ec"`,
    ),
  );
  let y = bandHeight + 50;

  if (summary.statistics.length) {
    parts.push(textLines(['Key statistics'], MARGIN, y, 28, `font-weight="bold" fill="${COLORS.ink}"`));
    y += 24;
    const gap = 24;
    const cardWidth = (inner - gap * (summary.statistics.length - 1)) / summary.statistics.length;
    summary.statistics.forEach((stat, i) => {
      const x = MARGIN + i * (cardWidth + gap);
      const valueSize = Math.min(56, Math.floor(cardWidth / (stat.value.length * 0.62)));
      parts.push(
        `<rect x="${Math.round(x)}" y="${y}" width="${Math.round(cardWidth)}" height="180" rx="14" fill="${COLORS.card}"/>`,
      );
      parts.push(
        textLines(
          [stat.value],
          Math.round(x + 20),
          y + 30 + valueSize,
          valueSize,
          `font-weight="bold" fill="${COLORS.accent}"`,
        ),
      );
      parts.push(
        textLines(wrap(stat.label, 18, cardWidth - 40, 2), Math.round(x + 20), y + 130, 18, `fill="${COLORS.muted}"`),
      );
    });
    y += 180 + 60;
  }

  if (summary.takeaways.length) {
    parts.push(textLines(['Key takeaways'], MARGIN, y, 28, `font-weight="bold" fill="${COLORS.ink}"`));
    y += 40;
    for (const takeaway of summary.takeaways) {
      const lines = wrap(takeaway, 20, inner - 40, 3);
      parts.push(`<circle cx="${MARGIN + 8}" cy="${y - 7}" r="6" fill="${COLORS.accent}"/>`);
      parts.push(textLines(lines, MARGIN + 30, y, 20, `fill="${COLORS.ink}"`));
      y += lines.length * 26 + 18;
    }
    y += 30;
  }

  if (summary.steps.length) {
    parts.push(textLines(['Process'], MARGIN, y, 28, `font-weight="bold" fill="${COLORS.ink}"`));
    y += 30;
    summary.steps.forEach((step, i) => {
      const lines = wrap(step, 20, inner - 90, 2);
      const height = Math.max(56, lines.length * 26 + 24);
      parts.push(`<circle cx="${MARGIN + 24}" cy="${y + 28}" r="22" fill="${COLORS.band}"/>`);
      parts.push(
        `<text x="${MARGIN + 24}" y="${y + 36}" font-size="22" font-weight="bold" fill="#ffffff" text-anchor="middle">${i + 1}</text>`,
      );
      if (i < summary.steps.length - 1)
        parts.push(
          `<line x1="${MARGIN + 24}" y1="${y + 50}" x2="${MARGIN + 24}" y2="${y + height + 6}" stroke="${COLORS.band}" stroke-width="3"/>`,
        );
      parts.push(textLines(lines, MARGIN + 70, y + 34, 20, `fill="${COLORS.ink}"`));
      y += height + 10;
    });
    y += 30;
  }

  if (summary.chart) {
    const { bars } = summary.chart;
    parts.push(textLines([summary.chart.title], MARGIN, y, 28, `font-weight="bold" fill="${COLORS.ink}"`));
    y += 30;
    const labelWidth = 340;
    const max = Math.max(...bars.map((b) => b.value));
    const barSpace = inner - labelWidth - 150;
    for (const bar of bars) {
      const width = Math.max(4, Math.round((bar.value / max) * barSpace));
      parts.push(textLines(wrap(bar.label, 18, labelWidth - 20, 1), MARGIN, y + 28, 18, `fill="${COLORS.ink}"`));
      parts.push(
        `<rect x="${MARGIN + labelWidth}" y="${y + 8}" width="${width}" height="30" rx="4" fill="${COLORS.bar}"/>`,
      );
      parts.push(
        textLines(
          [bar.display],
          MARGIN + labelWidth + width + 12,
          y + 30,
          18,
          `font-weight="bold" fill="${COLORS.ink}"`,
        ),
      );
      y += 48;
    }
    y += 30;
  }

  parts.push(
    textLines(
      [`AI-generated from "${summary.title}". Check the document for the full context.`],
      MARGIN,
      y + 10,
      16,
      `fill="${COLORS.muted}"`,
    ),
  );
  const height = Math.round(y + 50);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="${FONT}" role="img">` +
    `<title>${escapeXml(`Infographic: ${summary.title}`)}</title>` +
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>${parts.join('')}</svg>`
  );
}

export function altTextFor(summary: InfographicSummary): string {
  const parts = [`Infographic summarising "${summary.title}".`];
  if (summary.statistics.length)
    parts.push(`Key statistics: ${summary.statistics.map((s) => `${s.value} ${s.label}`.trim()).join('; ')}.`);
  if (summary.takeaways.length) parts.push(`Key takeaways: ${summary.takeaways.join(' ')}`);
  if (summary.steps.length) parts.push(`Process steps: ${summary.steps.map((s, i) => `${i + 1}. ${s}`).join('; ')}.`);
  if (summary.chart)
    parts.push(`A bar chart compares ${summary.chart.bars.map((b) => `${b.label} (${b.display})`).join(', ')}.`);
  const text = parts.join(' ');
  return text.length > 4000 ? `${text.slice(0, 3997)}...` : text;
}

export async function renderInfographic(
  title: string,
  passages: readonly SourcePassage[],
  workDir: string,
): Promise<{ svgFile: string; pngFile: string; altText: string; summary: InfographicSummary }> {
  const digest = digestDocument(title, passages);
  const summary = summarize(digest);
  const svg = layoutSvg(summary, digest.pages);
  const svgFile = path.join(workDir, 'infographic.svg');
  const pngFile = path.join(workDir, 'infographic.png');
  await writeFile(svgFile, svg);
  const { default: sharp } = await import('sharp');
  await sharp(Buffer.from(svg)).png().toFile(pngFile);
  return { svgFile, pngFile, altText: altTextFor(summary), summary };
}
