// Guards every surface puts before reading a body: a declared length over the limit is refused at
// once, and a body that does not arrive in time is cut. Both close the connection, because the rest
// of that body must not be read (Node would otherwise drain it to reuse the socket).
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../shared/errors.ts';

/** As body-parser decides it (type-is): a request has a body when it announces a length or chunks. */
export const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

const LINGER_MS = 2_000;

/**
 * Answers, then stops reading: the socket is half-closed after the response and paused, so the
 * client sees the answer and TCP flow control stops its upload; it is destroyed shortly after.
 */
export function closeAfterResponse(req: Request, res: Response): void {
  res.setHeader('Connection', 'close');
  res.once('finish', () => {
    if (req.complete) return;
    const socket = req.socket;
    req.unpipe();
    socket.end();
    socket.pause();
    // Node's own drain of the unread body resumes the socket on the next tick; pause it again
    setImmediate(() => socket.pause());
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

export type Refusal = (error: AppError, req: Request, res: Response) => void;

export interface BodyGuardOptions {
  maxBytes: number;
  /** 0: no deadline of our own (uploads: Node's requestTimeout is the bound). */
  timeoutMs: number;
  /** Count a chunked body's bytes with a data listener: only right before a parser that reads at once. */
  countChunks: boolean;
  /** The surface's error renderer: the guard answers itself, since the parser would first drain the body. */
  refuse: Refusal;
}

/**
 * Right before a parser reads a byte: a declared Content-Length over the limit is refused at once; a
 * chunked body is counted and refused when it passes the limit; a body must have arrived
 * `timeoutMs` after the request began (one byte every few seconds would hold a connection for
 * ever). body-parser alone would read a refused body to its end before answering.
 */
export function guardBody({ maxBytes, timeoutMs, countChunks, refuse }: BodyGuardOptions) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req) || req.complete) return next();
    const stop = (error: AppError) => {
      if (res.headersSent || res.writableEnded) return void req.socket.destroy();
      closeAfterResponse(req, res);
      refuse(error, req, res);
    };
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBytes) {
      return stop(new AppError('payload_too_large', `The request body may not exceed ${maxBytes} bytes`));
    }
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () =>
              req.complete ||
              stop(new AppError('request_timeout', `The request body did not arrive within ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
    timer?.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
    if (declared === undefined && countChunks) {
      // chunked: counted as it arrives (a listener added now sees every chunk the parser sees)
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          req.off('data', count);
          stop(new AppError('payload_too_large', `The request body may not exceed ${maxBytes} bytes`));
        }
      };
      req.on('data', count);
    }
    next();
  };
}
