import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import request from 'supertest';
import { mostSpecificFirst, routeTable, sequence } from '../../src/http/dispatch.ts';

/** Sets req.openapi as the contract lookup would, for the express-style route of the operation. */
const operation =
  (expressRoute: string): RequestHandler =>
  (req, _res, next) => {
    (req as Request & { openapi?: { expressRoute: string } }).openapi = { expressRoute };
    next();
  };

const errors = (error: Error, _req: Request, res: Response, _next: NextFunction) =>
  void res.status(500).json({ error: error.message });

describe("dispatch: one layer for a chain, one step to an operation's route", () => {
  it('when a chain runs, then each step runs in order; a throw, a rejection or next(error) reaches the error handler', async () => {
    const seen: string[] = [];
    const app = express();
    app.use(
      sequence([
        (_req, _res, next) => (seen.push('sync'), next()),
        async (req, _res, next) => {
          await new Promise((resolve) => setImmediate(resolve));
          seen.push('async');
          if (req.query.fail === 'throw') throw new Error('thrown');
          if (req.query.fail === 'reject') return Promise.reject(new Error('rejected'));
          next();
        },
        (req, _res, next) => (req.query.fail === 'next' ? next(new Error('passed')) : next()),
        (req, _res, next) => {
          if (req.query.fail === 'sync') throw new Error('sync throw');
          next();
        },
      ]),
    );
    app.get('/', (_req, res) => void res.json({ seen }));
    app.use(errors);
    assert.deepEqual((await request(app).get('/').expect(200)).body.seen, ['sync', 'async']);
    for (const [fail, message] of [
      ['throw', 'thrown'],
      ['reject', 'rejected'],
      ['next', 'passed'],
      ['sync', 'sync throw'],
    ]) {
      assert.equal((await request(app).get(`/?fail=${fail}`).expect(500)).body.error, message);
    }
  });

  it('when the operation is known, then its route answers with its own decoded parameters, as the walk would', async () => {
    const app = express();
    app.use(operation('/things/:id'));
    app.use(
      routeTable((router) => {
        router.get('/things', (_req, res) => void res.json({ route: 'list' }));
        router.get(
          '/things/:id',
          (req, res) => void res.json({ route: 'item', id: req.params.id, path: req.route?.path }),
        );
        router.delete('/things/:id', (_req, res) => void res.status(204).end());
      }),
    );
    app.use(errors);
    assert.deepEqual((await request(app).get('/things/a%20b').expect(200)).body, {
      route: 'item',
      id: 'a b',
      path: '/things/:id',
    });
    await request(app).delete('/things/x').expect(204);
  });

  it('when two routes could answer one path, then the table is walked in order (the first registered wins)', async () => {
    const app = express();
    app.use(operation('/things/:id'));
    app.use(
      routeTable((router) => {
        router.get('/things/export', (_req, res) => void res.json({ route: 'export' }));
        router.get('/things/:id', (_req, res) => void res.json({ route: 'item' }));
      }),
    );
    assert.equal((await request(app).get('/things/export').expect(200)).body.route, 'export');
    assert.equal((await request(app).get('/things/7').expect(200)).body.route, 'item');
  });

  it('when the operation names no route of the table, then the walk decides (and passes on when nothing matches)', async () => {
    const app = express();
    app.use(operation('/elsewhere/:id'));
    app.use(routeTable((router) => router.get('/things/:id', (_req, res) => void res.json({ route: 'item' }))));
    app.use((_req, res) => void res.status(404).json({ route: 'none' }));
    assert.equal((await request(app).get('/things/1').expect(200)).body.route, 'item');
    assert.equal((await request(app).get('/nothing').expect(404)).body.route, 'none');
  });

  it('when modules register a parameter route before a literal one at the same place, then the literal one still answers its path', async () => {
    const app = express();
    // the order a module list might give: the library's /:id first, the catalogue's /categories after
    const modules = [
      (router: express.Router) =>
        void router.get('/api/resources/:id', (req, res) => void res.json({ route: 'id', id: req.params.id })),
      (router: express.Router) =>
        void router.get('/api/resources/categories', (_req, res) => void res.json({ route: 'categories' })),
    ];
    app.use(
      routeTable(
        mostSpecificFirst((table) =>
          modules.forEach((register) => {
            register(table);
          }),
        ),
      ),
    );
    assert.deepEqual((await request(app).get('/api/resources/categories').expect(200)).body, { route: 'categories' });
    assert.deepEqual((await request(app).get('/api/resources/abc').expect(200)).body, { route: 'id', id: 'abc' });
  });
});
