// Body handling shared by the surfaces: the guards in the surface's error format, and the upload
// reader that hashes and counts a stream as it passes.
import { createHash } from 'node:crypto';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { AppError } from '../../shared/errors.ts';
import { guardBody } from '../body-guards.ts';
import { translate, type ErrorRenderer } from './failure.ts';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

export function bodyGuard(
  render: ErrorRenderer,
  options: { maxBytes: number; timeoutMs: number; countChunks?: boolean },
) {
  return guardBody({
    countChunks: true,
    ...options,
    refuse: (error, req, res) => render(translate(error), req, res, { transport: true }),
  });
}

export interface ReceivedUpload {
  bytes: number;
  /** Hex SHA-256 of the body: what a stream route hands to req.streamIdempotency.settle(). */
  sha256: string;
}

/**
 * Streams an upload's body into `sink`, hashing and counting it on the way (no copy is held in
 * memory). More than `maxBytes` (a chunked body may not announce its length) fails with 413.
 */
export async function receiveUpload(req: Request, sink: Writable, maxBytes: number): Promise<ReceivedUpload> {
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes)
        return callback(new AppError('payload_too_large', `The upload may not exceed ${maxBytes} bytes`));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  // req is piped, not put in the pipeline: a refusal must leave the socket open for the answer
  req.pipe(meter);
  req.once('error', (error) => meter.destroy(error));
  req.once('close', () => req.complete || meter.destroy(new Error('the client went away during the upload')));
  await pipeline(meter, sink);
  return { bytes, sha256: hash.digest('hex') };
}
