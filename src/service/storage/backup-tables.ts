import Database from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import { inList } from './sql/placeholders';
import type { Sql, SqlValue } from './sql/sql';

/** A table's row as portable values: text, numbers, null and bytes. */
export type Row = Record<string, SqlValue>;

/**
 * Tables a backup leaves out, and why: they hold what belongs to one running deployment, not to its projects.
 * Sign-in links and studio sessions are short-lived (people sign in again); `secrets` is the audio addresses'
 * signing key (each deployment makes its own; addresses live minutes); a model download in progress belongs to
 * the node running it; `schema_migrations` becomes the backup's schema version.
 */
export const NOT_BACKED_UP: ReadonlySet<string> = new Set(['schema_migrations', 'browser_sessions', 'sign_in_tokens', 'secrets', 'whisper_model_downloads']);

/** Rows per read: a table is streamed, never held whole. */
const BATCH = 500;

/** A consistent read of a whole database: every table as of one moment. */
export interface Snapshot {
  readonly dialect: 'sqlite' | 'postgres';
  schemaVersion: number;
  /** The tables a backup carries, parents before the tables whose rows name theirs. */
  tables: string[];
  /** The table's rows in batches. */
  rows(table: string): AsyncIterable<Row[]>;
}

/** Orders tables so each comes after those its foreign keys name (ties by name, so the order is stable). */
export function parentsFirst(tables: readonly string[], parents: ReadonlyMap<string, readonly string[]>): string[] {
  const ordered: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (table: string) => {
    if (state.get(table) === 'done') return;
    if (state.get(table) === 'visiting') throw new Error(`Foreign keys form a cycle through ${table}.`);
    state.set(table, 'visiting');
    for (const parent of [...(parents.get(table) ?? [])].sort()) if (parent !== table && tables.includes(parent)) visit(parent);
    state.set(table, 'done');
    ordered.push(table);
  };
  for (const table of [...tables].sort()) visit(table);
  return ordered;
}

function quoted(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a table or column name: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

async function sqliteTables(all: (text: string, params?: SqlValue[]) => Promise<Array<Record<string, unknown>>>): Promise<string[]> {
  const names = (await all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).map((r) => String(r.name));
  const parents = new Map<string, string[]>();
  for (const name of names) parents.set(name, (await all('SELECT "table" AS parent FROM pragma_foreign_key_list(?)', [name])).map((r) => String(r.parent)));
  return parentsFirst(
    names.filter((n) => !NOT_BACKED_UP.has(n)),
    parents,
  );
}

const POSTGRES_TABLES = "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'";
const POSTGRES_PARENTS = `
  SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
  FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
  WHERE c.contype = 'f' AND n.nspname = current_schema()`;

async function postgresTables(all: (text: string) => Promise<Array<Record<string, unknown>>>): Promise<string[]> {
  const names = (await all(POSTGRES_TABLES)).map((r) => String(r.name));
  const parents = new Map<string, string[]>();
  for (const r of await all(POSTGRES_PARENTS)) {
    const child = String(r.child).replace(/"/g, '');
    parents.set(child, [...(parents.get(child) ?? []), String(r.parent).replace(/"/g, '')]);
  }
  return parentsFirst(
    names.filter((n) => !NOT_BACKED_UP.has(n)),
    parents,
  );
}

/** The tables a backup carries in a database reached through `Sql`, parents first. */
export function backedUpTables(sql: Sql): Promise<string[]> {
  const all = (text: string, params: SqlValue[] = []) => sql.all<Record<string, unknown>>(text, params);
  return sql.dialect === 'sqlite' ? sqliteTables(all) : postgresTables(all);
}

/**
 * Reads a SQLite database file in one read transaction, without changing it (read-only: no migration, and a
 * desktop may be writing it meanwhile). In WAL mode the transaction's first read fixes what it sees: writes the
 * running service commits later are not in it.
 */
export async function withSqliteSnapshot<T>(file: string, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    try {
      const all = async (text: string, params: SqlValue[] = []) => db.prepare(text).all(...params) as Array<Record<string, unknown>>;
      // The first read starts the snapshot; everything below sees the database as of it.
      const version = (await all('SELECT max(version) AS v FROM schema_migrations'))[0]?.v;
      const snapshot: Snapshot = {
        dialect: 'sqlite',
        schemaVersion: Number(version ?? 0),
        tables: await sqliteTables(all),
        rows: async function* (table) {
          let batch: Row[] = [];
          for (const row of db.prepare(`SELECT * FROM ${quoted(table)}`).iterate()) {
            batch.push(row as Row);
            if (batch.length === BATCH) {
              yield batch;
              batch = [];
            }
          }
          if (batch.length) yield batch;
        },
      };
      return await work(snapshot);
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}

/**
 * Reads a PostgreSQL database in one REPEATABLE READ, READ ONLY transaction: every table as of its first
 * statement, whatever API nodes and workers commit meanwhile. Tables are read through cursors, a batch at a time.
 */
export async function withPostgresSnapshot<T>(pool: Pool, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const all = async (text: string) => (await client.query(text)).rows as Array<Record<string, unknown>>;
      const version = (await all('SELECT max(version) AS v FROM schema_migrations'))[0]?.v;
      let cursors = 0;
      const snapshot: Snapshot = {
        dialect: 'postgres',
        schemaVersion: Number(version ?? 0),
        tables: await postgresTables(all),
        rows: async function* (table) {
          const cursor = `backup_${++cursors}`;
          await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT * FROM ${quoted(table)}`);
          try {
            for (;;) {
              const { rows } = await client.query(`FETCH ${BATCH} FROM ${cursor}`);
              if (rows.length === 0) break;
              yield rows as Row[];
            }
          } finally {
            await client.query(`CLOSE ${cursor}`);
          }
        },
      };
      return await work(snapshot);
    } finally {
      await client.query('COMMIT');
    }
  } finally {
    client.release();
  }
}

/** The carried tables of a database that hold rows (a restore needs none). */
export async function tablesWithRows(sql: Sql): Promise<string[]> {
  const found: string[] = [];
  for (const table of await backedUpTables(sql)) if (await sql.get(`SELECT 1 AS one FROM ${quoted(table)} LIMIT 1`)) found.push(table);
  return found;
}

/** Inserts rows into a table (inside the caller's transaction), by column name. */
export async function insertRows(sql: Sql, table: string, rows: readonly Row[]): Promise<void> {
  for (const row of rows) {
    const columns = Object.keys(row);
    await sql.run(`INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, columns.map((c) => row[c]!));
  }
}

/**
 * What a restore leaves out, after the rows are in: recordings (with everything of theirs, by the foreign keys'
 * cascades), speakers' adaptations and installed models whose files were gone before the backup copied them.
 */
export async function removeLeftOut(sql: Sql, leftOut: { recordings: string[]; adaptations: string[]; models: string[] }): Promise<void> {
  if (leftOut.recordings.length) await sql.run(`DELETE FROM sessions WHERE id IN (${inList(leftOut.recordings)})`, leftOut.recordings);
  if (leftOut.adaptations.length) await sql.run(`DELETE FROM speaker_adaptations WHERE speaker_id IN (${inList(leftOut.adaptations)})`, leftOut.adaptations);
  if (leftOut.models.length) await sql.run(`DELETE FROM whisper_models WHERE name IN (${inList(leftOut.models)})`, leftOut.models);
}

/**
 * Gives restored recordings their change counters back. Triggers raise a recording's counter when its speakers
 * or its project's speakers are inserted; a counter set to a different value is left as set (the triggers skip it).
 */
export async function restoreChangeCounters(sql: Sql, counters: ReadonlyMap<string, number>): Promise<void> {
  for (const [id, seq] of counters) await sql.run('UPDATE sessions SET change_seq = ? WHERE id = ? AND change_seq <> ?', [seq, id, seq]);
}

/** Restored jobs still to run: those running at the backup are queued again (no process runs them any more). */
export async function unfinishedJobs(sql: Sql): Promise<Array<{ id: string; kind: string }>> {
  await sql.run("UPDATE jobs SET status = 'queued' WHERE status = 'running'");
  return sql.all<{ id: string; kind: string }>("SELECT id, kind FROM jobs WHERE status = 'queued' ORDER BY seq");
}
