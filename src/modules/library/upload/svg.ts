// SVG is text, so no magic bytes say what it is: it is parsed. A document is an SVG when, once a BOM,
// the XML declaration, comments and processing instructions are skipped, its root element is <svg> in
// the SVG namespace. A DOCTYPE or ENTITY is refused outright (XXE, billion laughs). Sanitising uses
// DOMPurify over jsdom (over linkedom it returns its input unchanged) in XHTML mode, with forbid lists
// for what that mode would otherwise keep (external <image href>, <use>, style). jsdom (some 650
// modules) is loaded on the first SVG, not when the app starts.
import type createDOMPurify from 'dompurify';
import { lazily } from '../../../shared/lazy.ts';

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/**
 * jsdom and DOMPurify walk a document recursively and on the request's thread: 5,000 nested <g> (35 KB)
 * overflowed the stack after blocking every request for seconds, 100,000 flat elements (2.7 MB) blocked
 * them for 4.7 s. Real drawings stay far below both, so a document beyond either is refused before it
 * is parsed (a linear scan of its tags).
 */
export const MAX_SVG_DEPTH = 256;
export const MAX_SVG_ELEMENTS = 20_000;

/** Comments and CDATA (skipped), closing tags, and opening or empty tags, in document order. */
const TAGS = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)[A-Za-z_][^>]*?(\/?)>/g;

function tooLarge(root: string): string | undefined {
  let depth = 0;
  let elements = 0;
  for (const [tag, closing, empty] of root.matchAll(TAGS)) {
    if (tag.startsWith('<!')) continue;
    if (closing) {
      depth -= 1;
      continue;
    }
    elements += 1;
    if (!empty) depth += 1;
    if (depth > MAX_SVG_DEPTH) return `an SVG nested more than ${MAX_SVG_DEPTH} elements deep`;
    if (elements > MAX_SVG_ELEMENTS) return `an SVG of more than ${MAX_SVG_ELEMENTS} elements`;
  }
  return undefined;
}

/** `root`: the document from its root element on (DOMPurify's XHTML parser drops a document with a prolog). */
export type SvgVerdict =
  | { svg: true; root: string }
  // tooLarge: an SVG, refused for its depth or its number of elements (the others are no SVG we accept)
  | { svg: false; reason: string; tooLarge?: true };

/** Whether `text` is an SVG document we accept (no DOCTYPE/ENTITY, root <svg> in the SVG namespace). */
export function recogniseSvg(text: string): SvgVerdict {
  let rest = text.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE|<!ENTITY/i.test(rest))
    return { svg: false, reason: 'an SVG with a DOCTYPE or ENTITY declaration is refused' };
  // skip what may precede the root: whitespace, the XML declaration, processing instructions, comments
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith('<?')) {
      const end = trimmed.indexOf('?>');
      if (end < 0) return { svg: false, reason: 'unterminated processing instruction' };
      rest = trimmed.slice(end + 2);
    } else if (trimmed.startsWith('<!--')) {
      const end = trimmed.indexOf('-->');
      if (end < 0) return { svg: false, reason: 'unterminated comment' };
      rest = trimmed.slice(end + 3);
    } else {
      rest = trimmed;
      break;
    }
  }
  const root = /^<(?:([A-Za-z_][\w.-]*):)?svg(?=[\s/>])([^>]*)>/.exec(rest);
  if (!root) return { svg: false, reason: 'the root element is not <svg>' };
  const prefix = root[1];
  const attributes = root[2] ?? '';
  const declaration = new RegExp(`\\sxmlns${prefix ? `:${prefix}` : ''}\\s*=\\s*["']([^"']*)["']`).exec(attributes);
  if (declaration?.[1] !== SVG_NAMESPACE) return { svg: false, reason: 'the root <svg> is not in the SVG namespace' };
  const excess = tooLarge(rest);
  if (excess) return { svg: false, reason: excess, tooLarge: true };
  return { svg: true, root: rest };
}

const purifier = lazily(async () => {
  const [{ default: createPurifier }, { JSDOM }] = await Promise.all([import('dompurify'), import('jsdom')]);
  return createPurifier(new JSDOM('').window as unknown as Parameters<typeof createDOMPurify>[0]);
});

/** The SVG (from its root element) without scripts, event handlers, foreignObject, external references or styles; undefined when nothing is left. */
export async function sanitiseSvg(root: string): Promise<string | undefined> {
  const clean = (await purifier()).sanitize(root, {
    USE_PROFILES: { svg: true, svgFilters: true },
    PARSER_MEDIA_TYPE: 'application/xhtml+xml',
    FORBID_TAGS: ['foreignObject', 'image', 'use', 'style', 'script', 'a'],
    FORBID_ATTR: ['style', 'href', 'xlink:href'],
  });
  if (!/^<svg[\s>]/.test(clean)) return undefined;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${clean}`;
}
