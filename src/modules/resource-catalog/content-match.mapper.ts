// A keyword search's content matches as the API shows them (components/schemas/ResourceContentMatches):
// ts_headline's marked text becomes plain text plus highlight ranges, so no markup from the document
// (or from us) reaches a client that renders it, and each client highlights in its own way.
import type { components } from '../../types/openapi.d.ts';
import { type ContentMatchRow, MARK_START, MARK_STOP } from './catalog-search.repository.ts';

export type ContentMatchesDto = components['schemas']['ResourceContentMatches'];
type ContentMatchDto = components['schemas']['ResourceContentMatch'];
type Location = ContentMatchDto['location'];

const SNIPPET_MAX = 1000;

/**
 * Plain text and the ranges (Unicode code points, half-open) of the marked words. Whitespace runs
 * (line breaks of the extracted page) collapse to one space; adjacent marked words stay apart.
 */
export function fromHeadline(headline: string): Pick<ContentMatchDto, 'snippet' | 'highlights'> {
  const out: string[] = [];
  const highlights: ContentMatchDto['highlights'] = [];
  let start = -1;
  for (const char of headline.trim()) {
    if (char === MARK_START) start = out.length;
    else if (char === MARK_STOP) {
      if (start >= 0 && out.length > start && out.length <= SNIPPET_MAX) highlights.push({ start, end: out.length });
      start = -1;
    } else if (/\s/u.test(char)) {
      if (out.length && out[out.length - 1] !== ' ') out.push(' ');
    } else out.push(char);
  }
  return { snippet: out.slice(0, SNIPPET_MAX).join(''), highlights };
}

/** The matches of each resource of the page; a resource with no matching text gets none (not absent). */
export function toContentMatches(
  ids: readonly string[],
  rows: readonly ContentMatchRow[],
): Map<string, ContentMatchesDto> {
  const matches = new Map<string, ContentMatchesDto>(ids.map((id) => [id, { pageCount: 0, pages: [] }]));
  for (const row of rows) {
    const entry = matches.get(row.resource_id);
    if (!entry) continue;
    entry.pageCount = row.page_count;
    entry.pages.push({
      pageNumber: row.page_number,
      location: row.location_kind as Location,
      ...fromHeadline(row.headline),
    });
  }
  return matches;
}
