// The listening server creates requests and responses with the app's prototypes in place, so
// Express's per-request Object.setPrototypeOf finds nothing to change (docs/performance.md), and
// everything Express adds to them still works.
import assert from 'node:assert/strict';
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import express from 'express';
import { loadConfig } from '../../src/config.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/shared/logger.ts';

const settings = loadConfig({ NODE_ENV: 'test' }).http;

async function listening(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the listening server: requests and responses born with the app's prototypes", () => {
  it("when a request arrives, then its objects were created with the prototypes Express gives them, and Express's methods work", async () => {
    const app = express();
    app.get('/probe/:id', (req, res) => {
      res.json({
        requestBornAsApp:
          Object.getPrototypeOf(req) === app.request &&
          req.constructor !== IncomingMessage &&
          req instanceof IncomingMessage,
        responseBornAsApp:
          Object.getPrototypeOf(res) === app.response &&
          res.constructor !== ServerResponse &&
          res instanceof ServerResponse,
        app: req.app === app && res.app === app,
        header: req.get('x-probe'),
        id: req.params.id,
        query: req.query.q,
      });
    });
    const servers = [
      createHttpServer(app, settings, 'http://localhost', createLogger('silent')),
      createHttpServer(app, settings, 'http://localhost', createLogger('silent')),
    ];
    try {
      for (const server of servers) {
        const base = await listening(server);
        const response = await fetch(`${base}/probe/7?q=x`, { headers: { 'X-Probe': 'yes' } });
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), {
          requestBornAsApp: true,
          responseBornAsApp: true,
          app: true,
          header: 'yes',
          id: '7',
          query: 'x',
        });
      }
    } finally {
      for (const server of servers) server.close();
    }
  });

  it('when the app is served without those classes (as supertest does), then Express sets the prototypes itself and the same route answers', async () => {
    const app = express();
    app.get('/probe', (req, res) =>
      res.json({ app: req.app === app, inherits: Object.getPrototypeOf(req) === app.request }),
    );
    const born = createHttpServer(app, settings, 'http://localhost', createLogger('silent'));
    const plain = createServer(app);
    try {
      await listening(born);
      const response = await fetch(`${await listening(plain)}/probe`);
      assert.deepEqual(await response.json(), { app: true, inherits: true });
    } finally {
      born.close();
      plain.close();
    }
  });
});
