import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/service/storage/database';
import { MIGRATIONS } from '../../src/service/storage/migrations';
import { migratePostgres } from '../../src/service/storage/postgres/migrate';
import { startPostgres, type ThrowawayPostgres } from '../helpers/postgres';
import { repoRoot } from '../helpers/paths';

interface Column {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
}
interface Table {
  columns: Column[];
  primaryKey: string[];
  foreignKeys: string[];
}
type Schema = Record<string, Table>;

const SQLITE_TYPES: Record<string, string> = { TEXT: 'text', INTEGER: 'bigint', REAL: 'double precision', BLOB: 'bytea' };

function sqliteSchema(db: Db): { tables: Schema; indexes: string[] } {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  const tables: Schema = {};
  for (const name of names) {
    const info = db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>;
    const fks = db.prepare(`PRAGMA foreign_key_list("${name}")`).all() as Array<{ table: string; from: string; to: string; on_delete: string }>;
    tables[name] = {
      columns: info.map((c) => ({
        name: c.name,
        type: SQLITE_TYPES[c.type] ?? `unmapped ${c.type}`,
        // A primary key's columns are NOT NULL in PostgreSQL whatever the declaration says.
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.dflt_value,
      })),
      primaryKey: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      foreignKeys: fks.map((f) => `${f.from} -> ${f.table}(${f.to}) on delete ${f.on_delete.toLowerCase()}`).sort(),
    };
  }
  const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  return { tables, indexes };
}

async function postgresSchema(client: pg.Client): Promise<{ tables: Schema; indexes: string[] }> {
  const columns = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const keys = await client.query<{ table_name: string; column_name: string }>(
    `SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
     WHERE tc.table_schema = 'public' AND tc.constraint_type = 'PRIMARY KEY' ORDER BY tc.table_name, kcu.ordinal_position`,
  );
  const fks = await client.query<{ table_name: string; column_name: string; foreign_table: string; foreign_column: string; delete_rule: string }>(
    `SELECT kcu.table_name, kcu.column_name, ccu.table_name AS foreign_table, ccu.column_name AS foreign_column, rc.delete_rule
     FROM information_schema.referential_constraints rc
     JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name AND kcu.constraint_schema = rc.constraint_schema
     JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.unique_constraint_name AND ccu.constraint_schema = rc.unique_constraint_schema
     WHERE rc.constraint_schema = 'public'`,
  );
  const tables: Schema = {};
  for (const c of columns.rows) {
    const table = (tables[c.table_name] ??= { columns: [], primaryKey: [], foreignKeys: [] });
    table.columns.push({
      name: c.column_name,
      type: c.data_type,
      notNull: c.is_nullable === 'NO',
      // '{}'::text → '{}': the cast is PostgreSQL's way of writing the same constant.
      default: c.column_default === null ? null : c.column_default.replace(/::[a-z ]+$/, ''),
    });
  }
  for (const k of keys.rows) tables[k.table_name]!.primaryKey.push(k.column_name);
  for (const f of fks.rows) tables[f.table_name]!.foreignKeys.push(`${f.column_name} -> ${f.foreign_table}(${f.foreign_column}) on delete ${f.delete_rule.toLowerCase()}`);
  for (const table of Object.values(tables)) table.foreignKeys.sort();
  const indexes = (await client.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`)).rows.map((r) => r.indexname);
  return { tables, indexes };
}

describe('the SQLite and PostgreSQL schemas', () => {
  let server: ThrowawayPostgres;
  let pool: pg.Pool;
  let client: pg.Client;
  let sqlite: Db;

  beforeAll(async () => {
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    sqlite = openDatabase(':memory:');
  }, 60_000);
  afterAll(async () => {
    sqlite?.close();
    await client?.end();
    await pool?.end();
    await server?.stop();
  });

  it('applies every migration once, also when several nodes start at the same time', async () => {
    const runs = await Promise.all([migratePostgres(pool), migratePostgres(pool), migratePostgres(pool)]);
    expect(runs.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
    expect(await migratePostgres(pool)).toEqual([]);
  });

  it('agree table by table: columns in order, types of the same range, NOT NULL, defaults, keys and indexes', async () => {
    const lite = sqliteSchema(sqlite);
    const post = await postgresSchema(client);
    // The migrator's own bookkeeping table is created outside the numbered list, slightly differently.
    delete lite.tables.schema_migrations;
    delete post.tables.schema_migrations;
    expect(Object.keys(post.tables).sort()).toEqual(Object.keys(lite.tables).sort());
    for (const name of Object.keys(lite.tables)) expect(post.tables[name], name).toEqual(lite.tables[name]);
    expect(post.indexes).toEqual(lite.indexes);
  });

  it('npm run migrate brings a fresh database up to date, then finds nothing to do', async () => {
    await client.query('CREATE DATABASE cli_target');
    const env = { ...process.env, TAKELINE_DATABASE_URL: server.url.replace(/\/postgres$/, '/cli_target') };
    const migrate = () => spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/migrate.ts'], { cwd: repoRoot, env, encoding: 'utf8' });
    const first = migrate();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(`applied migrations ${MIGRATIONS.map((m) => m.version).join(', ')}\n`);
    const again = migrate();
    expect(again.stdout).toBe('the database is up to date\n');
    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/migrate.ts', '--force'], { cwd: repoRoot, env, encoding: 'utf8' });
    expect(refused.status).toBe(2);
  });

  it("count a recording's changes the same way (the ETag's change counter, kept by triggers)", async () => {
    const steps = [
      "INSERT INTO projects (id, key, name, created_at) VALUES ('p1', 'p', 'P', 't')",
      "INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s1', 'p1', 'a.wav', 'a.wav', 1.5, '{}', 'en', 't', 'queued')",
      "UPDATE sessions SET status = 'running' WHERE id = 's1'",
      "UPDATE projects SET name = 'Q' WHERE id = 'p1'",
      "INSERT INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES ('k1', 'p1', 1, 'Ada', 'S1', '[]', 't')",
      "INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds) VALUES ('s1', 'S1', 'k1', 0.9, 1, 3.5)",
      "UPDATE session_speakers SET seconds = 4 WHERE session_id = 's1'",
      "DELETE FROM session_speakers WHERE session_id = 's1'",
      "UPDATE project_speakers SET name = 'Bo' WHERE id = 'k1'",
      "DELETE FROM project_speakers WHERE id = 'k1'",
    ];
    const liteSeq: number[] = [];
    const postSeq: number[] = [];
    for (const sql of steps) {
      sqlite.exec(sql);
      await client.query(sql);
      liteSeq.push((sqlite.prepare("SELECT change_seq FROM sessions WHERE id = 's1'").get() as { change_seq: number } | undefined)?.change_seq ?? -1);
      postSeq.push(Number((await client.query("SELECT change_seq FROM sessions WHERE id = 's1'")).rows[0]?.change_seq ?? -1));
    }
    expect(postSeq).toEqual(liteSeq);
    // Every step after the recording exists changed what its document shows.
    expect(liteSeq.slice(1)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
