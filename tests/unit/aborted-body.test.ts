// A client that stops sending a JSON body midway is the client's doing: its error is a 400
// (malformed_body), not an internal error the surface logs at level error for every dropped upload.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { toAppError } from '../../src/http/problem.ts';

describe('a JSON body cut off by its client', () => {
  it('when the connection closes before the announced length arrives, then the parser error is a 400 malformed_body', async () => {
    const app = express();
    let seen: unknown;
    const caught = new Promise<void>((resolve) => {
      const handler: ErrorRequestHandler = (error, _req, res, _next) => {
        seen = error;
        resolve();
        res.end();
      };
      const never: RequestHandler = (_req, res) => void res.end();
      app.post('/body', express.json(), never, handler);
    });
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /body HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "a',
    );
    setTimeout(() => socket.destroy(), 50);
    await caught;
    server.close();
    assert.equal((seen as { type?: string }).type, 'request.aborted', 'the parser saw the abort');
    const translated = toAppError(seen);
    assert.equal(translated.status, 400);
    assert.equal(translated.code, 'malformed_body');
  });
});
