// Streams a stored file as HTTP wants it: Content-Type, RFC 6266 Content-Disposition (with filename*
// for any name), ETag and Last-Modified with conditional requests (304), Accept-Ranges and one byte
// range (206, or 416 with `Content-Range: bytes */size`), so a video plays and seeks in a browser; a
// HEAD gets the same headers and no body.
// Used by downloads, old versions, thumbnails and generated media alike; works for any FileStorage.
import { create as contentDisposition } from 'content-disposition';
import fresh from 'fresh';
import type { Request, Response } from 'express';
import parseRange from 'range-parser';
import type { Readable } from 'node:stream';
import type { FileStorage } from '../integrations/storage/file-storage.ts';
import { AppError } from '../shared/errors.ts';

export interface StoredFile {
  key: string;
  sizeBytes: number;
  contentType: string;
  /** Strong validator, e.g. the SHA-256 of the bytes: `"<sha256>"`. */
  etag: string;
  lastModified: Date;
  /** The name the browser saves it under. */
  fileName: string;
  /** `attachment` (download) or `inline` (play, show). */
  disposition: 'attachment' | 'inline';
}

/** What was sent, so a caller can count downloads (a video's many range requests are one download). */
export interface SendOutcome {
  status: 200 | 206 | 304;
  /** Bytes were sent from byte 0 (a whole file, or a range from the start): not for a HEAD. */
  fromStart: boolean;
}

const SVG = 'image/svg+xml';

export async function sendStoredFile(
  req: Request,
  res: Response,
  storage: FileStorage,
  file: StoredFile,
): Promise<SendOutcome> {
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Disposition', contentDisposition(file.fileName, { type: file.disposition }));
  res.setHeader('ETag', file.etag);
  res.setHeader('Last-Modified', file.lastModified.toUTCString());
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // an SVG opened directly must not run anything or reach out, whatever survived sanitising
  if (file.contentType === SVG)
    res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'; style-src 'unsafe-inline'");
  res.setHeader('Cache-Control', 'private, no-cache');

  if (fresh(req.headers, { etag: file.etag, 'last-modified': file.lastModified.toUTCString() })) {
    res.status(304).end();
    return { status: 304, fromStart: false };
  }

  let range: { start: number; end: number } | undefined;
  const header = req.headers.range;
  // If-Range: a range only applies to the representation the client already has part of
  const ifRange = req.headers['if-range'];
  const rangeApplies = header !== undefined && (ifRange === undefined || ifRange === file.etag);
  if (rangeApplies) {
    const parsed = parseRange(file.sizeBytes, header, { combine: true });
    if (parsed === -1) {
      res.setHeader('Content-Range', `bytes */${file.sizeBytes}`);
      throw new AppError('range_not_satisfiable', `The range ${header} is outside the file's ${file.sizeBytes} bytes`, {
        headers: { 'Content-Range': `bytes */${file.sizeBytes}` },
      });
    }
    // -2 (malformed) and multiple ranges: answer with the whole file, as RFC 9110 allows
    if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1) range = parsed[0];
  }

  const length = range ? range.end - range.start + 1 : file.sizeBytes;
  res.status(range ? 206 : 200);
  res.setHeader('Content-Length', String(length));
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.sizeBytes}`);
  const head = req.method === 'HEAD';
  const outcome: SendOutcome = { status: range ? 206 : 200, fromStart: !head && (!range || range.start === 0) };
  if (head || length === 0) {
    res.end();
    return outcome;
  }
  await streamInto(await storage.get(file.key, range), res);
  return outcome;
}

/**
 * Pipes a stored file into the response and settles when the response closes: sent, or the client
 * went away (then the file is closed and nothing is answered). A storage stream or a response that
 * fails midway rejects, and the surface's error handler logs it and cuts the response.
 * Hand-written rather than `stream.pipeline`: pipeline settles by aborting an AbortController, and
 * the DOMException that builds (a stack trace) was 4% of a range request's CPU.
 */
function streamInto(body: Readable, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    // the client left while the file was being looked up: 'close' has been emitted already
    if (res.closed || res.destroyed) {
      body.destroy();
      return resolve();
    }
    let failure: Error | undefined;
    // either side may fail (a storage read, a write to a socket gone bad): cut both, answer once
    const fail = (error: Error) => {
      failure ??= error;
      body.unpipe(res);
      body.destroy();
      res.destroy();
    };
    body.on('error', fail);
    res.on('error', fail);
    res.once('close', () => {
      body.destroy();
      if (failure) reject(failure);
      else resolve();
    });
    body.pipe(res);
  });
}
