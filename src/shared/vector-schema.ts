// The vector schema: pgvector columns and their indexes, declared by migrations and converged after
// migrations on every start.
//
// A migration never adds a vector column itself, and never skips one because pgvector is missing: it
// creates its table without the column and records the column in `vector_columns`
// (declareVectorColumn). The migration is then truthfully applied whatever the server offers, and
// convergeVectorSchema (run by migrateUp, under the migration lock) adds every declared column and
// index that is missing as soon as the extension is there: today, or after pgvector is installed later.
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from './logger.ts';

export interface VectorColumn {
  table: string;
  column: string;
  dimensions: number;
  /** Distance the HNSW index serves (default cosine). */
  distance?: 'cosine' | 'l2' | 'ip';
}

export interface VectorSchemaStatus {
  /** installed: in this database; available: the server could install it (not done yet); absent: it cannot. */
  extension: 'installed' | 'available' | 'absent';
  /** ready: installed and every declared column and index exists; pending: something is still missing; unavailable: no pgvector. */
  state: 'ready' | 'pending' | 'unavailable';
  /** Declared columns or indexes not in place yet, as `table.column`. */
  pending: string[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,50}$/;
const OPCLASS = { cosine: 'vector_cosine_ops', l2: 'vector_l2_ops', ip: 'vector_ip_ops' } as const;

function checkIdentifiers(column: VectorColumn): void {
  if (!IDENTIFIER.test(column.table) || !IDENTIFIER.test(column.column))
    throw new Error(`invalid vector column name ${column.table}.${column.column}`);
  if (!Number.isInteger(column.dimensions) || column.dimensions < 1 || column.dimensions > 16_000)
    throw new Error(`invalid vector dimensions ${column.dimensions}`);
}

const indexName = (c: VectorColumn) => `${c.table}_${c.column}_hnsw_idx`;

/** For a migration's up(): records a vector column its table should have (the column itself converges). */
export async function declareVectorColumn(sequelize: Sequelize, column: VectorColumn): Promise<void> {
  checkIdentifiers(column);
  await sequelize.query(
    `INSERT INTO vector_columns (table_name, column_name, dimensions, distance) VALUES (:table, :column, :dimensions, :distance)
     ON CONFLICT (table_name, column_name) DO UPDATE SET dimensions = EXCLUDED.dimensions, distance = EXCLUDED.distance`,
    { replacements: { ...column, distance: column.distance ?? 'cosine' } },
  );
}

/** For a migration's down(): forgets the declaration (dropping the table drops the column). */
export async function undeclareVectorColumn(sequelize: Sequelize, table: string, column: string): Promise<void> {
  await sequelize.query('DELETE FROM vector_columns WHERE table_name = :table AND column_name = :column', {
    replacements: { table, column },
  });
}

async function extensionState(sequelize: Sequelize): Promise<VectorSchemaStatus['extension']> {
  const row = await sequelize.query<{ installed: boolean; available: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`,
    { plain: true, type: QueryTypes.SELECT },
  );
  return row?.installed ? 'installed' : row?.available ? 'available' : 'absent';
}

/** Declared columns whose table exists (a later migration's table may not, after a partial rollback). */
async function declaredColumns(
  sequelize: Sequelize,
): Promise<Array<VectorColumn & { present: boolean; indexed: boolean }>> {
  const declared = await sequelize.query<{ exists: boolean }>(
    "SELECT to_regclass('vector_columns') IS NOT NULL AS exists",
    { plain: true, type: QueryTypes.SELECT },
  );
  if (!declared?.exists) return [];
  return sequelize.query(
    `SELECT v.table_name AS "table", v.column_name AS "column", v.dimensions, v.distance,
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = to_regclass(v.table_name) AND a.attname = v.column_name AND NOT a.attisdropped) AS present,
            to_regclass(v.table_name || '_' || v.column_name || '_hnsw_idx') IS NOT NULL AS indexed
       FROM vector_columns v
      WHERE to_regclass(v.table_name) IS NOT NULL
      ORDER BY v.table_name, v.column_name`,
    { type: QueryTypes.SELECT },
  );
}

/** Read-only: what /health reports and what decides between semantic and keyword search. */
export async function inspectVectorSchema(sequelize: Sequelize): Promise<VectorSchemaStatus> {
  const extension = await extensionState(sequelize);
  const pending = (await declaredColumns(sequelize))
    .filter((c) => !c.present || !c.indexed)
    .map((c) => `${c.table}.${c.column}`);
  const state =
    extension === 'installed'
      ? pending.length
        ? 'pending'
        : 'ready'
      : extension === 'available'
        ? 'pending'
        : 'unavailable';
  return { extension, state, pending };
}

/**
 * Brings the database to the declared vector schema, idempotently. When the server offers pgvector but
 * the database does not have it yet (it was installed after the migration that tried), it tries
 * CREATE EXTENSION once more; a role without the right gets a warning naming what to run.
 */
export async function convergeVectorSchema(sequelize: Sequelize, logger: Logger): Promise<VectorSchemaStatus> {
  if ((await extensionState(sequelize)) === 'available') {
    try {
      await sequelize.query('CREATE EXTENSION IF NOT EXISTS vector');
      logger.info('pgvector appeared since the last migration: extension created');
    } catch (error) {
      logger.warn(
        { err: error },
        'pgvector is available but this role cannot create it: run CREATE EXTENSION vector as the database owner, then restart',
      );
    }
  }
  if ((await extensionState(sequelize)) === 'installed') {
    for (const column of await declaredColumns(sequelize)) {
      if (column.present && column.indexed) continue;
      checkIdentifiers(column);
      try {
        await sequelize.query(
          `ALTER TABLE "${column.table}" ADD COLUMN IF NOT EXISTS "${column.column}" vector(${column.dimensions})`,
        );
        const opclass = OPCLASS[column.distance ?? 'cosine'] ?? OPCLASS.cosine;
        await sequelize.query(
          `CREATE INDEX IF NOT EXISTS "${indexName(column)}" ON "${column.table}" USING hnsw ("${column.column}" ${opclass})`,
        );
        logger.info({ table: column.table, column: column.column }, 'vector column converged');
      } catch (error) {
        logger.error(
          { err: error, table: column.table, column: column.column },
          'vector column could not be added; semantic search stays off',
        );
      }
    }
  }
  return inspectVectorSchema(sequelize);
}
