import type { Router } from 'express';
import type { Database } from '../../shared/database.ts';
import { AppError } from '../../shared/errors.ts';
import { inspectVectorSchema } from '../../shared/vector-schema.ts';

export function healthRoutes(router: Router, db: Database): void {
  router.get('/health', async (_req, res) => {
    // Inspected live: an operator who installs pgvector sees `pending` here until the next start converges it.
    const vector = await inspectVectorSchema(db.sequelize).catch((cause) => {
      throw new AppError('service_unavailable', 'The database does not answer', {}, { cause });
    });
    res.json({
      status: 'ok',
      database: { kind: db.kind, version: db.version },
      vector: vector.extension === 'installed',
      vectorSchema: vector,
      // What this process serves: it decided at start (db.vector), and switches only on restart.
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
