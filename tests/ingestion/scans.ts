// Scanned pages made here, offline: text drawn into an image (sharp renders an SVG), then degraded the way a
// scanner and an office copier degrade it (a slight skew, blur, grain, specks, JPEG), and put into a PDF as
// an image only: no text objects, exactly what a scan is. Deterministic (seeded noise).
import PDFDocument from 'pdfkit';
import sharp from 'sharp';

export interface ScanOptions {
  /** Lines of each column, left to right (one column for a plain page; none for a blank page). */
  columns: ReadonlyArray<readonly string[]>;
  /** Page size in inches (small pages keep the test fast). */
  width?: number;
  height?: number;
  /** Scan resolution. */
  dpi?: number;
  /** Degrees of skew (a page laid slightly askew on the glass). */
  skew?: number;
  seed?: number;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** The page as a degraded greyscale JPEG. */
export async function scanImage(options: ScanOptions): Promise<Buffer> {
  const dpi = options.dpi ?? 150;
  const [w, h] = [Math.round((options.width ?? 6) * dpi), Math.round((options.height ?? 4.5) * dpi)];
  const size = Math.round(dpi * 0.15); // 11-point type
  const columnWidth = (w - dpi * 0.6) / Math.max(1, options.columns.length);
  const text = options.columns.flatMap((lines, c) =>
    lines.map(
      (line, i) =>
        `<text x="${Math.round(dpi * 0.35 + c * columnWidth)}" y="${Math.round(dpi * 0.55 + i * size * 1.45)}" font-family="DejaVu Serif" font-size="${size}">${escapeXml(line)}</text>`,
    ),
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/>${text.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .rotate(options.skew ?? 1.2, { background: '#ffffff' })
    .blur(0.6)
    .grayscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let seed = options.seed ?? 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  // paper grain everywhere, and now and then a dark speck of dust
  for (let i = 0; i < data.length; i++)
    data[i] = Math.max(0, Math.min(255, data[i]! - 12 + (random() - 0.5) * 40 - (random() < 0.0008 ? 180 : 0)));
  return sharp(data, { raw: info }).jpeg({ quality: 55 }).toBuffer();
}

/** A PDF whose pages are these images, each filling its page (width x height inches), without a text layer. */
export async function scannedPdf(
  pages: ReadonlyArray<Buffer | { text: string }>,
  width = 6,
  height = 4.5,
): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, info: { Title: 'Scan', CreationDate: new Date(0) } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  for (const page of pages) {
    doc.addPage({ size: [width * 72, height * 72], margin: 36 });
    // a born-digital page among the scans (a cover sheet typed later): it has a text layer
    if (!Buffer.isBuffer(page)) doc.fontSize(11).text(page.text);
    else doc.image(page, 0, 0, { width: width * 72, height: height * 72 });
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}
