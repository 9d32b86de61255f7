import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Pool } from 'pg';
import { openPostgresPool } from '../../../src/service/storage/sql/postgres-sql';

/** Tables that change on every request by design (studio sessions, sign-in links): not stored data. */
const VOLATILE = ['browser_sessions', 'sign_in_tokens'];

/** Where the service keeps its rows: the data folder's SQLite file, or a team's PostgreSQL. */
interface Rows {
  activeJobs(): Promise<number>;
  /** `t <table> <rows> <digest>` per table, in name order. */
  tableDigests(): Promise<string[]>;
  close(): Promise<void>;
}

const digestOf = (rows: Iterable<unknown>) => {
  const digest = crypto.createHash('sha256');
  let n = 0;
  for (const row of rows) {
    digest.update(JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v)));
    n++;
  }
  return `${n} ${digest.digest('hex').slice(0, 16)}`;
};

class SqliteRows implements Rows {
  private db: Database.Database | null = null;
  constructor(private readonly file: string) {}

  private database(): Database.Database {
    // Read-only beside the running service (WAL lets it read while the service writes).
    return (this.db ??= new Database(this.file, { readonly: true, fileMustExist: true }));
  }

  async activeJobs(): Promise<number> {
    return (this.database().prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued','running')").get() as { n: number }).n;
  }

  async tableDigests(): Promise<string[]> {
    const db = this.database();
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN (${VOLATILE.map(() => '?').join(',')}) ORDER BY name`).all(...VOLATILE) as Array<{ name: string }>;
    return tables.map(({ name }) => `t ${name} ${digestOf(db.prepare(`SELECT * FROM "${name}"`).iterate())}`);
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = null;
  }
}

class PostgresRows implements Rows {
  private readonly pool: Pool;
  constructor(url: string) {
    this.pool = openPostgresPool(url, 1);
  }

  async activeJobs(): Promise<number> {
    return Number((await this.pool.query("SELECT count(*) AS n FROM jobs WHERE status IN ('queued','running')")).rows[0].n);
  }

  async tableDigests(): Promise<string[]> {
    // Takeline's tables only (pg-boss keeps its own schema, busy with its maintenance).
    const tables = (
      await this.pool.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND NOT (table_name = ANY($1)) ORDER BY table_name", [VOLATILE])
    ).rows;
    const lines: string[] = [];
    // Rows in a stable order without knowing each table's key: by the row's own text.
    for (const { name } of tables) lines.push(`t ${name} ${digestOf((await this.pool.query(`SELECT * FROM "${name}" AS r ORDER BY r::text`)).rows)}`);
    return lines;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A fingerprint of the service's stored data: every file's path, size and modification time under its data
 * folder (the database files aside) and a digest of every table's rows, from the SQLite file or, given a
 * team's `databaseUrl`, from PostgreSQL. Two equal fingerprints mean nothing was stored or removed.
 */
export class DataSnapshot {
  private readonly rows: Rows;

  constructor(
    private readonly root: string,
    databaseUrl?: string,
  ) {
    this.rows = databaseUrl ? new PostgresRows(databaseUrl) : new SqliteRows(path.join(root, 'takeline.db'));
  }

  /** True when no job is queued or running, so nothing changes the data by itself. */
  async idle(): Promise<boolean> {
    return (await this.rows.activeJobs()) === 0;
  }

  /** The fingerprint's lines: one per file and one digest per table. */
  async fingerprint(): Promise<string[]> {
    const lines: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        const rel = path.relative(this.root, full);
        if (/^takeline\.db/.test(rel)) continue;
        // The engines' working space (decoders started or stopped by earlier requests, emptied at start):
        // nothing stored lives there.
        if (rel === 'scratch' || rel.startsWith(`scratch${path.sep}`)) continue;
        if (entry.isDirectory()) {
          lines.push(`d ${rel}`);
          walk(full);
        } else {
          const stat = fs.statSync(full, { throwIfNoEntry: false });
          if (stat) lines.push(`f ${rel} ${stat.size} ${stat.mtimeMs}`);
        }
      }
    };
    walk(this.root);
    return [...lines, ...(await this.rows.tableDigests())];
  }

  /** Lines only in `before` (-) or only in `after` (+). */
  static diff(before: string[], after: string[]): string[] {
    const a = new Set(before);
    const b = new Set(after);
    return [...before.filter((l) => !b.has(l)).map((l) => `- ${l}`), ...after.filter((l) => !a.has(l)).map((l) => `+ ${l}`)];
  }

  close(): Promise<void> {
    return this.rows.close();
  }
}
