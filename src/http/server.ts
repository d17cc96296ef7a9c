// The listening server: timeouts a load balancer can live with, and problem+json even for requests
// that never reach Express (headers over 16 KB, bytes that are not HTTP, headers that never finish).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { HttpSettings } from '../config.ts';
import { AppError, type ErrorCode } from '../shared/errors.ts';
import { expressMessageClasses } from './express-messages.ts';
import type { Logger } from '../shared/logger.ts';
import { problemType } from './problem.ts';

type ClientError = Error & { code?: string };

/** Node's parser errors, by what they mean to the client. */
function codeOf(error: ClientError): ErrorCode {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT') return 'request_timeout';
  return 'malformed_request';
}

/** A whole HTTP response written on the socket: Express never saw this request, so there is no res. */
export function rawProblem(baseUrl: string, code: ErrorCode, detail: string): string {
  const problem = new AppError(code, detail);
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: problemType(baseUrl, code),
    title: problem.title,
    status: problem.status,
    detail,
    code,
    requestId,
  });
  return [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const DETAILS: Partial<Record<ErrorCode, string>> = {
  headers_too_large: 'The request line and headers may not exceed 16 KB',
  request_timeout: 'The request did not arrive in time',
  malformed_request: 'The request is not valid HTTP',
};

export function createHttpServer(app: Express, settings: HttpSettings, baseUrl: string, logger: Logger): Server {
  // requests and responses created with Express's prototypes in place (express-messages.ts)
  const server = createServer(
    {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      ...expressMessageClasses(app),
    },
    app,
  );
  server.keepAliveTimeout = settings.keepAliveTimeoutMs;
  server.on('clientError', (error: ClientError, socket: Socket) => {
    const code = codeOf(error);
    logger.debug({ code, err: error }, 'request refused before routing');
    // ECONNRESET and friends: nobody is listening for an answer any more
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    // a response already under way (a body that timed out mid-request) cannot take another status line
    const underWay = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (underWay) return void socket.destroy();
    socket.end(rawProblem(baseUrl, code, DETAILS[code] ?? 'The request was refused'));
  });
  return server;
}
