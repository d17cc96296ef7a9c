// PowerPoint: one unit per slide in presentation order (p:sldIdLst and its relationships, not file
// names), the slide's text paragraphs then its speaker notes; pageNumber = the slide number, the
// heading the slide's title.
import { XMLParser } from 'fast-xml-parser';
import JSZip from 'jszip';
import { posix } from 'node:path';
import { cleanText, type Extraction, type TextUnit } from './extracted-text.ts';

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  preserveOrder: true,
  trimValues: false,
  processEntities: true,
});

const tagOf = (node: Node) => Object.keys(node).find((key) => key !== ':@');
const childrenOf = (node: Node) => (node[tagOf(node) ?? ''] as Node[] | undefined) ?? [];
const attrsOf = (node: Node) => (node[':@'] as Record<string, string> | undefined) ?? {};

/** Text of the `a:t` runs below a node; fields (`a:fld`: slide numbers, dates) are skipped. */
function runsText(nodes: Node[]): string {
  let text = '';
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === '#text') text += String(node['#text']);
    else if (tag === 'a:fld') continue;
    else if (tag === 'a:br') text += ' ';
    else text += runsText(childrenOf(node));
  }
  return text;
}

interface Shape {
  placeholder: string | undefined;
  paragraphs: string[];
}

/** Each shape's paragraphs (`a:p`), in document order, with its placeholder type (title, body, sldNum ...). */
function shapes(nodes: Node[], out: Shape[] = [], current?: Shape): Shape[] {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (!tag || tag === '#text') continue;
    if (tag === 'p:sp' || tag === 'p:graphicFrame') {
      const shape: Shape = { placeholder: undefined, paragraphs: [] };
      out.push(shape);
      shapes(childrenOf(node), out, shape);
    } else if (tag === 'p:ph' && current) {
      current.placeholder = attrsOf(node)['@type'] ?? 'body';
    } else if (tag === 'a:p' && current) {
      const text = runsText(childrenOf(node)).trim();
      if (text) current.paragraphs.push(text);
    } else {
      shapes(childrenOf(node), out, current);
    }
  }
  return out;
}

async function xml(zip: JSZip, path: string): Promise<Node[] | null> {
  const file = zip.file(path);
  return file ? (parser.parse(await file.async('string')) as Node[]) : null;
}

/** Relationship id -> target path (resolved against the part's folder). */
async function relationships(zip: JSZip, part: string): Promise<Map<string, { target: string; type: string }>> {
  const rels = await xml(zip, posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`));
  const map = new Map<string, { target: string; type: string }>();
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      if (tagOf(node) === 'Relationship') {
        const a = attrsOf(node);
        if (a['@Id'] && a['@Target'])
          map.set(a['@Id'], {
            target: posix.normalize(posix.join(posix.dirname(part), a['@Target'])),
            type: a['@Type'] ?? '',
          });
      } else walk(childrenOf(node));
    }
  };
  walk(rels ?? []);
  return map;
}

function find(nodes: Node[], tag: string): Node[] {
  const found: Node[] = [];
  for (const node of nodes) {
    if (tagOf(node) === tag) found.push(node);
    else if (tagOf(node) !== '#text') found.push(...find(childrenOf(node), tag));
  }
  return found;
}

const TITLES = new Set(['title', 'ctrTitle']);
const SKIPPED = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);

export async function extractPptx(data: Buffer): Promise<Extraction> {
  const zip = await JSZip.loadAsync(data);
  const presentation = await xml(zip, 'ppt/presentation.xml');
  if (!presentation) throw new Error('no ppt/presentation.xml: not a PowerPoint file');
  const rels = await relationships(zip, 'ppt/presentation.xml');
  const slideParts = find(presentation, 'p:sldId')
    .map((node) => rels.get(attrsOf(node)['@r:id'] ?? '')?.target)
    .filter((target): target is string => Boolean(target));
  const units: TextUnit[] = [];
  for (const [index, part] of slideParts.entries()) {
    const slide = shapes((await xml(zip, part)) ?? []).filter((shape) => !SKIPPED.has(shape.placeholder ?? ''));
    const placeholderTitle = slide.find((shape) => TITLES.has(shape.placeholder ?? ''))?.paragraphs.join(' ') || null;
    const body = slide.filter((shape) => !TITLES.has(shape.placeholder ?? '')).flatMap((shape) => shape.paragraphs);
    // a deck built without placeholders: its first line stands for the title
    const title = placeholderTitle ?? body[0] ?? null;
    const lines = placeholderTitle ? [placeholderTitle, ...body] : body;
    const notesPart = [...(await relationships(zip, part)).values()].find((rel) =>
      rel.type.endsWith('/notesSlide'),
    )?.target;
    const notes = notesPart
      ? shapes((await xml(zip, notesPart)) ?? [])
          .filter((shape) => shape.placeholder === 'body')
          .flatMap((shape) => shape.paragraphs)
      : [];
    const text = cleanText([...lines, ...(notes.length ? ['', `Speaker notes: ${notes.join('\n')}`] : [])].join('\n'));
    if (text) units.push({ pageNumber: index + 1, locationKind: 'slide', headingPath: title, text });
  }
  return { units, pagesTotal: slideParts.length, pageNumbers: 'exact' };
}
