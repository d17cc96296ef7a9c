import type { Router } from 'express';
import type { Database } from '../../shared/database.ts';
import { AppError } from '../../shared/errors.ts';

export function healthRoutes(router: Router, db: Database): void {
  router.get('/health', async (_req, res) => {
    await db.sequelize.query('SELECT 1').catch((cause) => {
      throw new AppError('service_unavailable', 'The database does not answer', {}, { cause });
    });
    res.json({
      status: 'ok',
      database: { kind: db.kind, version: db.version },
      vector: db.vector,
      search: db.vector ? 'semantic' : 'keyword',
    });
  });
  router.get('/ready', async (_req, res) => {
    await db.sequelize.query('SELECT 1').catch((cause) => {
      throw new AppError('service_unavailable', 'Not ready: the database does not answer', {}, { cause });
    });
    res.json({ status: 'ready' });
  });
}
