import { PgBossQueue } from './queue/pg-boss-queue';
import { openDatabase } from './storage/database';
import type { DataLayout } from './storage/files';
import type { JobDispatch } from './storage/job-store';
import { migratePostgres } from './storage/postgres/migrate';
import { openPostgresPool, PostgresSql } from './storage/sql/postgres-sql';
import type { Sql } from './storage/sql/sql';
import { SqliteSql } from './storage/sql/sqlite-sql';

/** Where the service keeps its records and queues its work: the embedded SQLite file, or the team's PostgreSQL. */
export interface Persistence {
  sql: Sql;
  /** Team mode: jobs recorded through the stores also go to the queue engine. */
  dispatch?: JobDispatch;
  /** Team mode: the queue engine a worker takes its jobs from. */
  queue: PgBossQueue | null;
  /** `embedded`: this process runs its own jobs (the desktop); a team's `api` node only queues them; a `worker` runs them. */
  role: 'embedded' | ProcessRole;
  close(): Promise<void>;
}

export type ProcessRole = 'api' | 'worker';

/** The embedded database in the data folder (the desktop): this process runs its own jobs. */
export function openEmbedded(layout: DataLayout, onDatabaseError?: (error: unknown) => void): Persistence {
  const db = openDatabase(layout.database);
  return {
    sql: new SqliteSql(db, { onError: onDatabaseError }),
    queue: null,
    role: 'embedded',
    close: async () => {
      db.close();
    },
  };
}

/**
 * The team's PostgreSQL: the schema is brought up to date (under an advisory lock, so nodes starting together
 * take turns), and pg-boss queues the jobs. An API node only queues; a worker runs them.
 */
export async function openTeam(url: string, role: ProcessRole, log: (line: string) => void, onDatabaseError?: (error: unknown) => void): Promise<Persistence> {
  const pool = openPostgresPool(url, undefined, (error) => {
    onDatabaseError?.(error);
    log(`database: an idle connection ended: ${error.message}`);
  });
  try {
    await migratePostgres(pool);
    const queue = await PgBossQueue.open(url, { log, role, onError: onDatabaseError });
    return {
      sql: new PostgresSql(pool, -1, onDatabaseError),
      dispatch: queue.dispatch,
      queue,
      role,
      close: async () => {
        await queue.stop();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}


/**
 * The records alone, without a queue engine: what the command-line tools (`npm run keys`) need. The team's
 * PostgreSQL when `databaseUrl` is set (its schema brought up to date first), else the data folder's SQLite
 * file. `where` names it for messages, without the URL's password.
 */
export async function openRecords(databaseUrl: string | null | undefined, layout: DataLayout): Promise<{ sql: Sql; where: string; close(): Promise<void> }> {
  if (!databaseUrl) {
    const embedded = openEmbedded(layout);
    return { sql: embedded.sql, where: layout.root, close: embedded.close };
  }
  const pool = openPostgresPool(databaseUrl, 2);
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const url = new URL(databaseUrl);
  url.password = '';
  return { sql: new PostgresSql(pool), where: url.toString(), close: () => pool.end() };
}
