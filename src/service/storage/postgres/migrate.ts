import type { Pool, PoolClient } from 'pg';
import { MIGRATIONS, type Migration } from '../migrations';
import { postgresSql } from './dialect';

// Any fixed number: API nodes and workers starting together take turns, so each migration runs once.
const MIGRATION_LOCK = 0x74616b65;

/**
 * Brings a PostgreSQL database up to the latest schema (`npm run migrate`, or the first start of a node).
 * Each migration runs in its own transaction, under an advisory lock held for the whole run.
 */
export async function migratePostgres(pool: Pool, migrations: ReadonlyArray<Migration> = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      return await applyPending(client, migrations);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

async function applyPending(client: PoolClient, migrations: ReadonlyArray<Migration>): Promise<number[]> {
  await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  const latestKnown = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest > latestKnown) {
    throw new Error(`The database was written by a newer Takeline (schema ${newest}; this one knows ${latestKnown}).`);
  }
  const done: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    await client.query('BEGIN');
    try {
      await client.query(postgresSql(migration));
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw new Error(`PostgreSQL migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
    }
    done.push(migration.version);
  }
  return done;
}
