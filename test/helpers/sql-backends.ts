import path from 'node:path';
import type { Pool } from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { openDatabase, type Db } from '../../src/service/storage/database';
import { migratePostgres } from '../../src/service/storage/postgres/migrate';
import { openPostgresPool, PostgresSql } from '../../src/service/storage/sql/postgres-sql';
import type { Sql } from '../../src/service/storage/sql/sql';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { startPostgres, type ThrowawayPostgres } from './postgres';
import { tempDir } from './temp';

export type BackendName = 'sqlite' | 'postgres';

/** What a store test gets: a fresh, fully migrated database of one backend, new for every test. */
export interface Backend {
  name: BackendName;
  sql: Sql;
}

let server: ThrowawayPostgres | null = null;
let templateReady: Promise<void> | null = null;
let databases = 0;

/** One PostgreSQL server per test file, with the schema migrated once into a template database. */
async function postgresTemplate(): Promise<ThrowawayPostgres> {
  server ??= await startPostgres();
  templateReady ??= (async () => {
    const admin = openPostgresPool(server!.url, 1);
    await admin.query('CREATE DATABASE takeline_template');
    await admin.end();
    const pool = openPostgresPool(dbUrl(server!.url, 'takeline_template'), 1);
    await migratePostgres(pool);
    await pool.end();
  })();
  await templateReady;
  return server;
}

function dbUrl(url: string, name: string): string {
  return url.replace(/\/[^/]*$/, `/${name}`);
}

/**
 * Runs `suite` once per backend — the embedded SQLite file and a throwaway PostgreSQL — so a store's
 * contract is one set of tests that both implementations pass. Each test gets its own empty database.
 */
export function eachBackend(title: string, suite: (backend: () => Backend) => void): void {
  for (const name of ['sqlite', 'postgres'] as const) {
    describe(`${title} (${name})`, () => {
      let current: Backend | null = null;
      let close: (() => Promise<void>) | null = null;

      if (name === 'postgres') {
        beforeAll(async () => {
          await postgresTemplate();
        }, 60_000);
        afterAll(async () => {
          if (server) await server.stop();
          server = null;
          templateReady = null;
        });
      }

      beforeEach(async () => {
        if (name === 'sqlite') {
          const db: Db = openDatabase(path.join(tempDir('store-'), 'takeline.db'));
          current = { name, sql: new SqliteSql(db) };
          close = async () => {
            db.close();
          };
        } else {
          const pg = await postgresTemplate();
          const database = `store_${process.pid}_${++databases}`;
          const admin = openPostgresPool(pg.url, 1);
          await admin.query(`CREATE DATABASE ${database} TEMPLATE takeline_template`);
          await admin.end();
          const pool: Pool = openPostgresPool(dbUrl(pg.url, database), 4);
          current = { name, sql: new PostgresSql(pool) };
          close = () => pool.end();
        }
      });

      afterEach(async () => {
        await close?.();
        current = null;
      });

      suite(() => {
        if (!current) throw new Error('eachBackend: the database exists only inside a test');
        return current;
      });
    });
  }
}

/** A project 'p' and recordings of it with these ids, as store tests need them (rows other tables refer to). */
export async function insertSessions(sql: Sql, ids: readonly string[], options: { duration?: number; status?: string } = {}): Promise<void> {
  await sql.run("INSERT INTO projects (id, key, name, created_at) VALUES ('p', 'p', 'P', '2026-01-01T00:00:00Z')");
  for (const id of ids) {
    await sql.run(
      "INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES (?, 'p', 'a.wav', 'original.wav', ?, '{}', 'en', '2026-01-01T00:00:00Z', ?)",
      [id, options.duration ?? 60, options.status ?? 'queued'],
    );
  }
}
