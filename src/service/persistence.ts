import type { RunnerRole } from './jobs/job-runner';
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
  role: RunnerRole;
  close(): Promise<void>;
}

export type ProcessRole = 'api' | 'worker';

/** The embedded database in the data folder (the desktop): this process runs its own jobs. */
export function openEmbedded(layout: DataLayout): Persistence {
  const db = openDatabase(layout.database);
  return {
    sql: new SqliteSql(db),
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
export async function openTeam(url: string, role: ProcessRole, log: (line: string) => void): Promise<Persistence> {
  const pool = openPostgresPool(url);
  try {
    await migratePostgres(pool);
    const queue = await PgBossQueue.open(url, { log });
    return {
      sql: new PostgresSql(pool),
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

