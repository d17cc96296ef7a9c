// What a stored upload is, decided from its bytes, never from its name or the client's header: magic
// bytes (file-type) for the binary formats, parsing for SVG (sanitised, and the sanitised bytes are what
// is kept). A name whose extension names another format is a lie and refused like an unknown type.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { fileTypeFromStream } from 'file-type';
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import { AppError } from '../../../shared/errors.ts';
import type { ResourceFormat, ResourceType } from '../resource.model.ts';
import { recogniseSvg, sanitiseSvg } from './svg.ts';

/** Bytes a file has once it sits at a temporary key (an upload part or a finished resumable upload). */
export interface StagedFile {
  tempKey: string;
  sizeBytes: number;
  sha256: string;
  fileName: string;
}

export interface InspectedFile extends StagedFile {
  format: ResourceFormat;
  type: ResourceType;
  contentType: string;
}

interface FormatInfo {
  type: ResourceType;
  contentType: string;
  /** Extensions a file name of this format may carry. */
  extensions: readonly string[];
}

export const FORMATS: Record<ResourceFormat, FormatInfo> = {
  pdf: { type: 'document', contentType: 'application/pdf', extensions: ['pdf'] },
  docx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['docx'],
  },
  xlsx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['xlsx'],
  },
  pptx: {
    type: 'document',
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extensions: ['pptx'],
  },
  mp4: { type: 'video', contentType: 'video/mp4', extensions: ['mp4', 'm4v'] },
  webm: { type: 'video', contentType: 'video/webm', extensions: ['webm'] },
  mp3: { type: 'audio', contentType: 'audio/mpeg', extensions: ['mp3'] },
  wav: { type: 'audio', contentType: 'audio/wav', extensions: ['wav', 'wave'] },
  png: { type: 'image', contentType: 'image/png', extensions: ['png'] },
  jpeg: { type: 'image', contentType: 'image/jpeg', extensions: ['jpg', 'jpeg', 'jpe'] },
  svg: { type: 'image', contentType: 'image/svg+xml', extensions: ['svg'] },
};

/** file-type's extension -> our format. */
const DETECTED: Readonly<Record<string, ResourceFormat>> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  mp4: 'mp4',
  m4v: 'mp4',
  webm: 'webm',
  mp3: 'mp3',
  wav: 'wav',
  png: 'png',
  jpg: 'jpeg',
};

/** SVGs are parsed whole: larger ones are refused rather than parsed. */
export const MAX_SVG_BYTES = 5 * 1024 * 1024;

const extensionOf = (fileName: string) => {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
};

const unsupported = (field: string, detectedType: string, detail: string) =>
  new AppError('unsupported_media_type', detail, { detectedType, errors: [{ field, message: detail }] });

async function sniff(storage: FileStorage, key: string): Promise<{ ext: string; mime: string } | undefined> {
  const stream = await storage.get(key);
  try {
    return await fileTypeFromStream(stream);
  } finally {
    stream.destroy();
  }
}

/**
 * Decides the format of the staged file; an SVG is sanitised and re-staged under a new temporary key
 * (the old one is deleted). Throws 400 for an empty file, 415 `unsupported_media_type` naming the
 * detected type for anything outside `allowed`, or for a name whose extension says otherwise.
 */
export async function inspectStagedFile(
  storage: FileStorage,
  file: StagedFile,
  options: { field: string; allowed: readonly ResourceFormat[]; newTempKey: () => string },
): Promise<InspectedFile> {
  // an empty part is a client mistake (a wrong path in `-F file=@…`), not a format: say so
  if (file.sizeBytes === 0) {
    throw new AppError('validation_failed', `The ${options.field} is empty`, {
      errors: [{ field: options.field, message: 'is empty (0 bytes)' }],
    });
  }
  const detected = await sniff(storage, file.tempKey);
  let format: ResourceFormat | undefined = detected ? DETECTED[detected.ext] : undefined;
  let staged = file;
  // SVG is text: file-type finds nothing, or XML when there is a declaration
  if ((!detected || detected.ext === 'xml') && file.sizeBytes <= MAX_SVG_BYTES) {
    const verdict = recogniseSvg(await text(await storage.get(file.tempKey)));
    if (!verdict.svg && verdict.tooLarge)
      throw unsupported(
        options.field,
        FORMATS.svg.contentType,
        `The ${options.field} is ${verdict.reason}, which is refused`,
      );
    const clean = verdict.svg ? await sanitiseSvg(verdict.root) : undefined;
    if (clean !== undefined) {
      format = 'svg';
      if (options.allowed.includes('svg')) staged = await restage(storage, file, clean, options.newTempKey());
    }
  }
  const detectedType = format === 'svg' ? FORMATS.svg.contentType : (detected?.mime ?? 'unknown');
  const accepted = options.allowed.map((f) => f.toUpperCase()).join(', ');
  if (!format || !options.allowed.includes(format)) {
    throw unsupported(
      options.field,
      detectedType,
      `The ${options.field} is ${detectedType === 'unknown' ? 'of an unknown type' : detectedType}; accepted: ${accepted}`,
    );
  }
  const extension = extensionOf(file.fileName);
  if (extension && !FORMATS[format].extensions.includes(extension)) {
    throw unsupported(
      options.field,
      detectedType,
      `The ${options.field}'s name ends in .${extension} but its content is ${detectedType}`,
    );
  }
  return { ...staged, format, type: FORMATS[format].type, contentType: FORMATS[format].contentType };
}

async function restage(storage: FileStorage, file: StagedFile, content: string, key: string): Promise<StagedFile> {
  const bytes = Buffer.from(content, 'utf8');
  await storage.put(key, Readable.from([bytes]), { contentType: FORMATS.svg.contentType });
  await storage.delete(file.tempKey);
  return { ...file, tempKey: key, sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
