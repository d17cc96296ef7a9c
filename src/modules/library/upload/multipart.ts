// Reads a multipart/form-data resource upload with multer and the streaming storage engine: at most one
// `file` and one `featuredImage` part, text fields with limits, the whole body bounded. A part over its
// limit (or a body over its bound) is answered with 413 at once, without reading the rest; any failure
// removes every temporary key the request wrote. multer's errors become problems naming the field.
import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import multer from 'multer';
import { canonicalJson } from '../../../http/idempotency.ts';
import { unstorableTextRefusal } from '../../../http/text-guard.ts';
import type { FileStorage } from '../../../integrations/storage/file-storage.ts';
import { sha256 } from '../../../shared/crypto.ts';
import { AppError, errors, type FieldError } from '../../../shared/errors.ts';
import { streamingStorage, type StagedPart } from './storage-engine.ts';
import { UploadSession } from './upload-session.ts';
import { fitFileName } from './file-name.ts';

/** The file parts a route accepts, each with its byte limit (a resource: `file` and `featuredImage`). */
export type FileParts = Readonly<Record<string, number>>;

export interface MultipartLimits {
  /** The file parts accepted, each with its limit (a resource: `file`, LIBRARY_MAX_FILE_BYTES, and `featuredImage`). */
  files: FileParts;
  /** One text field's value, in bytes (the description's 5,000 characters fit). */
  fieldBytes: number;
  /** Text fields in one request (50 tags + 50 categories + the rest). */
  fields: number;
}

/** Multipart framing, part headers and text fields on top of the file parts. */
export const MULTIPART_OVERHEAD_BYTES = 2 * 1024 * 1024;

/** A resource's featured image, at most. */
export const FEATURED_IMAGE_MAX_BYTES = 10 * 1024 * 1024;

export const DEFAULT_LIMITS = { fieldBytes: 20_000, fields: 120 };

export interface UploadedPart extends StagedPart {
  fileName: string;
}

export interface MultipartUpload {
  fields: Record<string, unknown>;
  files: Partial<Record<string, UploadedPart>>;
  /**
   * SHA-256 of what the request says: its fields and each file's name, size and SHA-256. A retry sent
   * by curl, a browser or a form-data library has another boundary, so the bytes of the body differ
   * while the request is the same (the Idempotency-Key's fingerprint).
   */
  contentSha256: string;
  session: UploadSession;
}

type MulterFile = Express.Multer.File & Partial<StagedPart>;

const fieldError = (
  field: string,
  message: string,
  status: 'validation_failed' | 'malformed_body' = 'validation_failed',
) => new AppError(status, `${field} ${message}`, { errors: [{ field, message }] });

/** multer's and busboy's refusals as problems that name the field at fault. */
function translate(error: unknown, limits: MultipartLimits): unknown {
  const fileFields = Object.keys(limits.files);
  if (error instanceof AppError) return error;
  if (error instanceof multer.MulterError) {
    const field = error.field ?? 'body';
    switch (error.code) {
      case 'LIMIT_UNEXPECTED_FILE':
        return fieldError(
          field,
          fileFields.includes(field)
            ? 'may be sent only once'
            : `is not a file field (accepted: ${fileFields.join(', ')})`,
        );
      case 'LIMIT_FILE_COUNT':
        return fieldError('file', `at most ${fileFields.length} file parts are accepted`);
      case 'LIMIT_FIELD_VALUE':
        return fieldError(field, `exceeds ${limits.fieldBytes} bytes`);
      case 'LIMIT_FIELD_KEY':
        return fieldError('body', 'has a field name over 100 bytes');
      case 'LIMIT_FIELD_COUNT':
      case 'LIMIT_PART_COUNT':
        return fieldError('body', `has more than ${limits.fields} fields`);
      case 'LIMIT_FILE_SIZE':
        return new AppError('payload_too_large', `The ${field} may not exceed ${limits.files[field]} bytes`, {
          errors: [{ field, message: 'too large' }],
        });
      default:
        return fieldError(field, `is not acceptable (${error.message})`);
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/unexpected end of form|request aborted|request closed|malformed|boundary|multipart/i.test(message)) {
    return new AppError('malformed_body', `The multipart body could not be read: ${message}`, {
      errors: [{ field: 'body', message }],
    });
  }
  return error;
}

/** A field or file name read as latin1 (one character per byte), as UTF-8; undefined for other bytes. */
function utf8Of(latin1: string): string | undefined {
  const bytes = Buffer.from(latin1, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

export function multipartReader(storage: FileStorage, limits: MultipartLimits) {
  const fileParts = limits.files;
  const fileFields = Object.keys(fileParts);
  const sessions = new WeakMap<Request, UploadSession>();
  const routeBound = Object.values(fileParts).reduce((sum, bytes) => sum + bytes, 0) + MULTIPART_OVERHEAD_BYTES;
  const parse = multer({
    storage: streamingStorage(storage, (req) => sessions.get(req)!),
    // fields and file names are read one byte to one character and decoded as UTF-8 afterwards
    // (utf8Of): bytes that are not UTF-8 are refused there, where busboy's own decoding made U+FFFD
    defCharset: 'latin1',
    defParamCharset: 'latin1',
    // large buffers between the socket, busboy and the file stream: fewer, bigger writes to storage
    highWaterMark: 1024 * 1024,
    fileHwm: 1024 * 1024,
    limits: {
      fieldSize: limits.fieldBytes,
      fields: limits.fields,
      fieldNameSize: 100,
      files: fileFields.length,
      parts: limits.fields + fileFields.length,
    },
    // counts the whole body (a chunked one announces no length)
    streamHandler: (req: Request, busboy: NodeJS.WritableStream) => {
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > routeBound)
          sessions.get(req)?.fail(new AppError('payload_too_large', `The upload may not exceed ${routeBound} bytes`));
      });
      req.pipe(busboy);
    },
  } as multer.Options).fields(fileFields.map((name) => ({ name, maxCount: 1 })));

  return {
    /** The largest body the route accepts (the upload surface refuses a larger Content-Length at once). */
    routeBound,
    async read(req: Request, res: Response): Promise<MultipartUpload> {
      const session = new UploadSession(fileParts);
      sessions.set(req, session);
      const parsed = new Promise<void>((resolve, reject) =>
        parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
      );
      parsed.catch(() => undefined); // a fatal failure answers first; multer settles later
      try {
        await Promise.race([parsed, session.failed]);
      } catch (error) {
        const problem = translate(error, limits);
        if (problem instanceof AppError) session.fail(problem);
        await session.discard(storage);
        throw problem;
      }
      const files: MultipartUpload['files'] = {};
      const uploaded = (req.files ?? {}) as Record<string, MulterFile[]>;
      const notUtf8: FieldError[] = [];
      const decoded = (field: string, latin1: string) => {
        const text = utf8Of(latin1);
        if (text === undefined) notUtf8.push({ field, message: 'is not valid UTF-8' });
        return text ?? '';
      };
      // multer nests bracketed names (`tags[]`): every string, key or value, at any depth
      const decodedAll = (field: string, value: unknown): unknown => {
        if (typeof value === 'string') return decoded(field, value);
        if (Array.isArray(value)) return value.map((item) => decodedAll(field, item));
        if (value === null || typeof value !== 'object') return value;
        return Object.fromEntries(
          Object.entries(value).map(([key, item]) => [decoded(key, key), decodedAll(field || key, item)]),
        );
      };
      req.body = decodedAll('', req.body ?? {});
      for (const name of fileFields) {
        const part = uploaded[name]?.[0];
        if (part?.tempKey)
          files[name] = {
            tempKey: part.tempKey,
            size: part.size,
            sha256: part.sha256!,
            fileName: fitFileName(decoded(`${name}.filename`, part.originalname)),
          };
      }
      if (notUtf8.length) {
        await session.discard(storage);
        throw errors.validation(notUtf8);
      }
      // fields and file names are stored as text (see http/text-guard.ts)
      const refusal = unstorableTextRefusal({
        ...(req.body as object),
        ...Object.fromEntries(Object.entries(files).map(([name, file]) => [`${name}.filename`, file?.fileName])),
      });
      if (refusal) {
        await session.discard(storage);
        throw refusal;
      }
      const fields = { ...(req.body as Record<string, unknown>) };
      const described = Object.entries(files).map(([name, file]) => [name, file?.fileName, file?.size, file?.sha256]);
      return { fields, files, session, contentSha256: sha256(canonicalJson({ fields, files: described })) };
    },
  };
}
