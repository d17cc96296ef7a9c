// Real files of every accepted format, generated offline once per process: pdfkit, docx, exceljs,
// pptxgenjs, and ffmpeg (@ffmpeg-installer) for WAV, MP3, MP4, WebM, PNG and JPEG.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { Document, Packer, Paragraph } from 'docx';
import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import pptxgen from 'pptxgenjs';

const run = promisify(execFile);
// pptxgenjs's CommonJS types do not describe its default export as a class under NodeNext
const PptxGen = pptxgen as unknown as new () => {
  addSlide(): { addText(text: string, options: object): void };
  write(options: object): Promise<unknown>;
};

export type FixtureFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'mp4' | 'webm' | 'mp3' | 'wav' | 'png' | 'jpeg';

let dir: Promise<string> | undefined;
const cache = new Map<FixtureFormat, Promise<Buffer>>();

async function ffmpeg(args: string[], out: string): Promise<Buffer> {
  dir ??= mkdtemp(path.join(tmpdir(), 'guildhall-fixtures-'));
  const file = path.join(await dir, out);
  await run(ffmpegInstaller.path, ['-hide_banner', '-loglevel', 'error', '-y', ...args, file]);
  return readFile(file);
}

function pdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.text('Guildhall fixture, page 1');
    doc.end();
  });
}

async function build(format: FixtureFormat): Promise<Buffer> {
  switch (format) {
    case 'pdf':
      return pdf();
    case 'docx':
      return Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('Guildhall fixture')] }] }));
    case 'xlsx': {
      const workbook = new ExcelJS.Workbook();
      workbook.addWorksheet('Sheet').addRow(['Guildhall', 1]);
      return Buffer.from(await workbook.xlsx.writeBuffer());
    }
    case 'pptx': {
      const pptx = new PptxGen();
      pptx.addSlide().addText('Guildhall fixture', { x: 1, y: 1 });
      return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
    }
    case 'wav':
      return ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5'], 'a.wav');
    case 'mp3':
      return ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', '-c:a', 'libmp3lame'], 'a.mp3');
    case 'mp4':
      return ffmpeg(
        ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
        'v.mp4',
      );
    case 'webm':
      return ffmpeg(['-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'libvpx'], 'v.webm');
    case 'png':
      return ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1'], 'i.png');
    case 'jpeg':
      return ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1'], 'i.jpg');
  }
}

export function fixture(format: FixtureFormat): Promise<Buffer> {
  let file = cache.get(format);
  if (!file) cache.set(format, (file = build(format)));
  return file;
}

export const EXTENSIONS: Record<FixtureFormat, string> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  mp4: 'mp4',
  webm: 'webm',
  mp3: 'mp3',
  wav: 'wav',
  png: 'png',
  jpeg: 'jpg',
};

export const HOSTILE_SVG = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>
<!-- a drawing -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10" onload="alert(1)">
  <script>alert(2)</script>
  <rect width="10" height="10" fill="red" onclick="alert(3)"/>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>
  <image href="https://evil.example/x.png" width="1" height="1"/>
  <a xlink:href="javascript:alert(4)"><circle r="2"/></a>
</svg>`;
