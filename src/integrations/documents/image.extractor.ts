// PNG and JPEG: one page with no text objects, all of it for OCR. The image is checked to decode here, so
// a damaged file fails once as unreadable instead of at every OCR retry.
import sharp from 'sharp';
import type { Extraction } from './extracted-text.ts';

/** Larger images are scaled down before OCR: beyond this, more pixels cost time and memory, not words. */
const MAX_SIDE = 6000;

export async function extractImage(data: Buffer): Promise<Extraction> {
  const { width, height } = await sharp(data, { limitInputPixels: 200_000_000 }).metadata();
  if (!width || !height) throw new Error('The image has no size');
  return { units: [], pagesTotal: 1, pageNumbers: 'exact', pagesWithoutText: [1] };
}

/** The image as OCR reads it: turned upright (EXIF orientation, as phones record it), grey, PNG. */
export function imageForOcr(data: Buffer): Promise<Buffer> {
  return sharp(data, { limitInputPixels: 200_000_000 })
    .rotate()
    .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .grayscale()
    .png()
    .toBuffer();
}
