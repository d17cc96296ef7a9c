// Plain text: one unit; pages are not recorded, so everything is page 1.
import { cleanText, type Extraction } from './extracted-text.ts';

export function extractText(data: Buffer): Extraction {
  const text = cleanText(data.toString('utf8').replace(/^\uFEFF/, ''));
  return {
    units: text ? [{ pageNumber: 1, locationKind: 'text', headingPath: null, text }] : [],
    pagesTotal: 1,
    pageNumbers: 'exact',
  };
}
