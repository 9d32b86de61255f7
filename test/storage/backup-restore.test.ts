import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { writeBackup, type BackupSource } from '../../src/service/backup/backup';
import { MANIFEST_FILE, blobFile, type Manifest } from '../../src/service/backup/format';
import { STORED_ROOTS } from '../../src/service/backup/named-files';
import { BackupInvalid, restoreBackup, RestoreTargetNotEmpty } from '../../src/service/backup/restore';
import { backedUpTables, withPostgresSnapshot, withSqliteSnapshot, type Snapshot } from '../../src/service/storage/backup-tables';
import type { BlobStore } from '../../src/service/storage/blobs/blob-store';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { openDatabase } from '../../src/service/storage/database';
import { MIGRATIONS } from '../../src/service/storage/migrations';
import { migratePostgres } from '../../src/service/storage/postgres/migrate';
import { openPostgresPool, PostgresSql } from '../../src/service/storage/sql/postgres-sql';
import type { Sql } from '../../src/service/storage/sql/sql';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { tempDir } from '../helpers/temp';

const pg = postgresPerFile();
let databases = 0;

interface Place {
  sql: Sql;
  blobs: BlobStore;
  snapshot<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T>;
  /** Another connection to the same database (a service writing while the backup reads). */
  other(): Promise<Sql>;
  close(): Promise<void>;
}

async function sqlitePlace(migrations = MIGRATIONS): Promise<Place> {
  const dir = tempDir('backup-sqlite-');
  const file = path.join(dir, 'takeline.db');
  const db = openDatabase(file, migrations);
  const others: Array<{ close(): void }> = [];
  return {
    sql: new SqliteSql(db),
    blobs: new FolderBlobStore(dir),
    snapshot: (work) => withSqliteSnapshot(file, work),
    other: async () => {
      const second = openDatabase(file, migrations);
      others.push(second);
      return new SqliteSql(second);
    },
    close: async () => {
      for (const o of others) o.close();
      db.close();
    },
  };
}

async function postgresPlace(migrations = MIGRATIONS): Promise<Place> {
  const name = `backup_${process.pid}_${++databases}`;
  const admin = openPostgresPool(pg().url, 1);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = pg().url.replace(/\/[^/]*$/, `/${name}`);
  const pool = openPostgresPool(url, 4);
  await migratePostgres(pool, migrations);
  const second = openPostgresPool(url, 2);
  return {
    sql: new PostgresSql(pool),
    blobs: new FolderBlobStore(tempDir('backup-pg-files-')),
    snapshot: (work) => withPostgresSnapshot(pool, work),
    other: async () => new PostgresSql(second),
    close: async () => {
      await pool.end();
      await second.end();
    },
  };
}

const NOW = '2026-12-07T10:00:00.000Z';

/** Two recordings in a project with a transcript revision (bytes), a ready dub with two revisions, a user and a key. */
async function populate(place: Place, recordings = ['s1', 's2']): Promise<void> {
  const { sql, blobs } = place;
  await sql.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['p1', 'show', 'The show', NOW]);
  for (const id of recordings) {
    await sql.run(
      "INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status, progress, transcript_json) VALUES (?, 'p1', ?, 'original.flac', 12.345678901234, '{}', 'en', ?, 'complete', 1, ?)",
      [id, `${id}.flac`, NOW, JSON.stringify({ segments: [{ text: `words of ${id}` }] })],
    );
    await blobs.put(`recordings/${id}/original.flac`, Buffer.from(`audio of ${id}`));
    await blobs.put(`recordings/${id}/peaks.json`, '[0,1]');
    await sql.run("INSERT INTO transcript_revisions (session_id, revision, created_at, summary_json, transcript_gz) VALUES (?, 1, ?, '{}', ?)", [id, NOW, zlib.gzipSync(`corrected ${id}`)]);
    await sql.run("INSERT INTO editor_markers (id, session_id, time, name, created_at) VALUES (?, ?, 1.5, 'cut here', ?)", [`m-${id}`, id, NOW]);
    const dub = `d-${id}`;
    await sql.run(
      "INSERT INTO dubs (id, session_id, name, file_name, status, sample_rate, channels, sample_format, frames, background, created_at, updated_at, current_revision) VALUES (?, ?, 'French', 'dub.wav', 'ready', 48000, 2, 's24', 100, 0, ?, ?, 2)",
      [dub, id, NOW, NOW],
    );
    for (const n of [1, 2]) {
      await sql.run("INSERT INTO dub_revisions (dub_id, number, base, source, file_name, created_at) VALUES (?, ?, ?, ?, ?, ?)", [dub, n, n === 1 ? null : 1, n === 1 ? 'upload' : 'revoice', `r${n}.wav`, NOW]);
      await blobs.put(`recordings/${id}/dubs/${dub}/revisions/r${n}.wav`, Buffer.from(`revision ${n} of ${id}`));
    }
    // A recorded take beside a synthesized one: the copy carries each take's source (schemas that have it).
    const takeColumns = (await sql.all<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'dub_line_takes'").catch(() =>
      sql.all<{ name: string }>("SELECT name FROM pragma_table_info('dub_line_takes')"),
    )).map((c) => c.name);
    for (const [n, source] of takeColumns.includes('source') ? ([[1, 'synthesized'], [2, 'recorded']] as const) : []) {
      await sql.run(
        "INSERT INTO dub_line_takes (id, dub_id, line_id, number, job_id, voice, speed, source, status, plan_json, base_revision, created_at) VALUES (?, ?, 1, ?, 'j1', 'flite/slt', NULL, ?, 'ready', '{}', 1, ?)",
        [`t${n}-${id}`, dub, n, source, NOW],
      );
    }
  }
  await sql.run('INSERT INTO project_speakers (id, project_id, number, name, label, profile_json, created_at) VALUES (?, ?, 1, ?, ?, ?, ?)', ['sp1', 'p1', 'Ann', 'S1', '{}', NOW]);
  await sql.run("INSERT INTO session_speakers (session_id, label, speaker_id, similarity, matched, seconds) VALUES (?, 'S1', 'sp1', 0.9, 1, 3)", [recordings[0]!]);
  await sql.run('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)', ['u1', 'ann', NOW]);
  await sql.run("INSERT INTO api_keys (id, hash, hint, name, created_at, user_id, scope) VALUES ('k1', 'hash1', 'tl_ab…', 'cli', ?, 'u1', 'projects')", [NOW]);
  // Roles: the team's and one project's (a schema from before roles has none).
  if ((await backedUpTables(sql)).includes('user_roles')) {
    await sql.run("INSERT INTO user_roles (user_id, project_id, role, granted_at) VALUES ('u1', NULL, 'viewer', ?), ('u1', 'p1', 'editor', ?)", [NOW, NOW]);
  }
  await sql.run("INSERT INTO api_key_projects (key_id, project_id, position) VALUES ('k1', 'p1', 0)");
  // Left out by design: a deployment's own signing key and sign-ins.
  await sql.run("INSERT INTO secrets (name, value, created_at) VALUES ('audio-url', 'c2VjcmV0', ?)", [NOW]);
}

/** Every carried table's rows, sorted, as comparable JSON (bytes as hex). */
async function contents(sql: Sql): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await backedUpTables(sql)) {
    const rows = await sql.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort().map(([k, v]) => [k, Buffer.isBuffer(v) ? `hex:${v.toString('hex')}` : v])))).sort();
  }
  return out;
}

/** The stored files (not the data folder's database beside them), each as its sha256. */
async function files(blobs: BlobStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const root of STORED_ROOTS) for (const key of (await blobs.list(root)).sort()) out[key] = crypto.createHash('sha256').update((await blobs.get(key))!).digest('hex');
  return out;
}

const target = (place: Place) => ({ sql: place.sql, blobs: place.blobs, scratch: path.join(tempDir('backup-scratch-'), 'scratch.db') });

describe('backup and restore', () => {
  for (const [from, to] of [
    ['sqlite', 'postgres'],
    ['postgres', 'sqlite'],
  ] as const) {
    it(`copies every row and file from ${from} into an empty ${to}, and the copy reads as the original`, { timeout: 60_000 }, async () => {
      const source = from === 'sqlite' ? await sqlitePlace() : await postgresPlace();
      const restored = to === 'sqlite' ? await sqlitePlace() : await postgresPlace();
      try {
        await populate(source);
        const folder = tempDir('backup-');
        const manifest = await writeBackup(source, folder);
        expect(manifest.schema_version).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
        expect(manifest.left_out).toEqual([]);
        expect(manifest.tables.map((t) => t.name)).not.toContain('secrets');
        expect(manifest.tables.find((t) => t.name === 'sessions')!.rows).toBe(2);
        expect(manifest.blobs.map((b) => b.key)).toContain('recordings/s1/dubs/d-s1/revisions/r2.wav');
        // Parents first: a restore inserts in this order.
        const order = manifest.tables.map((t) => t.name);
        expect(order.indexOf('projects')).toBeLessThan(order.indexOf('sessions'));
        expect(order.indexOf('dubs')).toBeLessThan(order.indexOf('dub_revisions'));
        expect(order.indexOf('users')).toBeLessThan(order.indexOf('api_keys'));
        expect(order.indexOf('users')).toBeLessThan(order.indexOf('user_roles'));
        expect(order.indexOf('projects')).toBeLessThan(order.indexOf('user_roles'));
        expect(manifest.tables.find((t) => t.name === 'user_roles')!.rows).toBe(2);

        const summary = await restoreBackup(folder, target(restored));
        expect(summary.leftOut).toEqual([]);
        const original = await contents(source.sql);
        delete original.secrets;
        const copy = await contents(restored.sql);
        expect(copy).toEqual(original);
        expect(copy.sessions!.length).toBe(2);
        expect(copy.dub_line_takes!.map((t) => (JSON.parse(t) as { source: string }).source).sort()).toEqual(['recorded', 'recorded', 'synthesized', 'synthesized']);
        // The speaker inserted after the session raised its change counter; the restore gives it back.
        expect(await restored.sql.all('SELECT id, change_seq FROM sessions ORDER BY id')).toEqual(await source.sql.all('SELECT id, change_seq FROM sessions ORDER BY id'));
        expect(await files(restored.blobs)).toEqual(await files(source.blobs));
        expect(await restored.sql.all('SELECT * FROM secrets')).toEqual([]);
      } finally {
        await source.close();
        await restored.close();
      }
    });
  }

  it('reads the database as of one moment on PostgreSQL: rows committed while it reads are not in the backup', { timeout: 60_000 }, async () => {
    const source = await postgresPlace();
    try {
      await populate(source, ['s1']);
      const other = await source.other();
      const folder = tempDir('backup-');
      const manifest = await writeBackup(
        {
          blobs: source.blobs,
          snapshot: (work) =>
            source.snapshot(async (snapshot) => {
              // Another node commits an upload (its file first, then its row) and a key once the reading has begun.
              await source.blobs.put('recordings/s9/original.flac', 'late audio');
              await other.run("INSERT INTO sessions (id, project_id, file_name, stored_name, duration, format_json, language, created_at, status) VALUES ('s9', 'p1', 'late.flac', 'original.flac', 1, '{}', 'en', ?, 'queued')", [NOW]);
              await other.run("INSERT INTO api_keys (id, hash, hint, name, created_at) VALUES ('k9', 'hash9', 'tl_9…', 'late', ?)", [NOW]);
              return work(snapshot);
            }),
        },
        folder,
      );
      expect(manifest.tables.find((t) => t.name === 'sessions')!.rows).toBe(1);
      expect(manifest.tables.find((t) => t.name === 'api_keys')!.rows).toBe(1);
      expect(manifest.blobs.map((b) => b.key).filter((k) => k.startsWith('recordings/s9/'))).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it('reads a SQLite file as of one moment while another connection writes', { timeout: 60_000 }, async () => {
    const source = await sqlitePlace();
    try {
      await populate(source, ['s1']);
      const other = await source.other();
      const manifest = await writeBackup(
        {
          blobs: source.blobs,
          snapshot: (work) =>
            source.snapshot(async (snapshot) => {
              await other.run("INSERT INTO api_keys (id, hash, hint, name, created_at) VALUES ('k9', 'hash9', 'tl_9…', 'late', ?)", [NOW]);
              return work(snapshot);
            }),
        },
        tempDir('backup-'),
      );
      expect(manifest.tables.find((t) => t.name === 'api_keys')!.rows).toBe(1);
      expect(await source.sql.all('SELECT id FROM api_keys ORDER BY id')).toEqual([{ id: 'k1' }, { id: 'k9' }]);
    } finally {
      await source.close();
    }
  });

  it('a recording deleted after the snapshot, before its files were copied, is noted and left out whole by the restore', { timeout: 60_000 }, async () => {
    const source = await sqlitePlace();
    const restored = await postgresPlace();
    try {
      await populate(source);
      const folder = tempDir('backup-');
      const manifest = await writeBackup(
        {
          blobs: source.blobs,
          snapshot: async (work) => {
            const result = await source.snapshot(work);
            // The delete path: its rows go first, then its files; the snapshot still has the rows.
            await source.sql.run("DELETE FROM sessions WHERE id = 's2'");
            await source.blobs.deletePrefix('recordings/s2/');
            return result;
          },
        },
        folder,
      );
      expect(manifest.left_out).toEqual([{ kind: 'recording', id: 's2', missing: expect.arrayContaining(['recordings/s2/original.flac', 'recordings/s2/dubs/d-s2/revisions/r1.wav']) }]);
      const summary = await restoreBackup(folder, target(restored));
      expect(summary.leftOut.map((l) => l.id)).toEqual(['s2']);
      const copy = await contents(restored.sql);
      const original = await contents(source.sql);
      delete original.secrets;
      // As if it had been deleted before the snapshot: nothing of it (its dub, revisions, markers), everything else.
      expect(copy).toEqual(original);
      expect(Object.keys(await files(restored.blobs)).some((k) => k.startsWith('recordings/s2/'))).toBe(false);
      expect(Object.keys(await files(restored.blobs))).toContain('recordings/s1/original.flac');
    } finally {
      await source.close();
      await restored.close();
    }
  });

  it('refuses a target that holds data, and a damaged backup, writing nothing', { timeout: 60_000 }, async () => {
    const source = await sqlitePlace();
    const busy = await postgresPlace();
    const empty = await postgresPlace();
    try {
      await populate(source);
      const folder = tempDir('backup-');
      await writeBackup(source, folder);
      await busy.sql.run('INSERT INTO projects (id, key, name, created_at) VALUES (?, ?, ?, ?)', ['px', 'other', 'Other', NOW]);
      await expect(restoreBackup(folder, target(busy))).rejects.toThrow(RestoreTargetNotEmpty);
      expect(await busy.sql.all('SELECT id FROM projects')).toEqual([{ id: 'px' }]);
      // Files alone make a target non-empty too.
      const filesOnly = await postgresPlace();
      await filesOnly.blobs.put('recordings/x/original.flac', 'x');
      await expect(restoreBackup(folder, target(filesOnly))).rejects.toThrow(/holds files under recordings\//);
      await filesOnly.close();

      // One flipped byte in one recording: refused before anything is written.
      const file = path.join(folder, blobFile('recordings/s1/original.flac'));
      const bytes = fs.readFileSync(file);
      bytes[0] = bytes[0]! ^ 1;
      fs.writeFileSync(file, bytes);
      await expect(restoreBackup(folder, target(empty))).rejects.toThrow(/recordings\/s1\/original\.flac: .*sha256/);
      expect(await empty.sql.all('SELECT id FROM projects')).toEqual([]);
      expect(await files(empty.blobs)).toEqual({});

      // A manifest from a newer Takeline.
      const manifestFile = path.join(folder, MANIFEST_FILE);
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
      fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, schema_version: 9999 }));
      await expect(restoreBackup(folder, target(empty))).rejects.toThrow(BackupInvalid);
      await expect(restoreBackup(folder, target(empty))).rejects.toThrow(/newer Takeline \(schema 9999/);
      fs.rmSync(manifestFile);
      await expect(restoreBackup(folder, target(empty))).rejects.toThrow(/holds no manifest\.json/);
    } finally {
      await source.close();
      await busy.close();
      await empty.close();
    }
  });

  it('migrates a backup of an older schema forward as it restores', { timeout: 60_000 }, async () => {
    // Schema 18: before dub lines kept the voice they were made with (19 copies it from their voice).
    const old = await sqlitePlace(MIGRATIONS.filter((m) => m.version <= 18));
    const restored = await postgresPlace();
    try {
      await populate(old, ['s1']);
      await old.sql.run("INSERT INTO dub_lines (dub_id, id, speaker, start, \"end\", original_start, original_end, text, original_text, voice, updated_at) VALUES ('d-s1', 1, 'S1', 0, 1, 0, 1, 'hello', 'hello', 'flite/rms', ?)", [NOW]);
      const folder = tempDir('backup-');
      expect((await writeBackup(old, folder)).schema_version).toBe(18);
      const summary = await restoreBackup(folder, target(restored));
      expect(summary.schemaVersion).toBe(18);
      expect(await restored.sql.all('SELECT id, voice, original_voice FROM dub_lines')).toEqual([{ id: 1, voice: 'flite/rms', original_voice: 'flite/rms' }]);
      expect(await restored.sql.all('SELECT id FROM sessions')).toEqual([{ id: 's1' }]);
    } finally {
      await old.close();
      await restored.close();
    }
  });

  it('goes only into an empty or new folder', async () => {
    const source = await sqlitePlace();
    try {
      const folder = tempDir('backup-');
      fs.writeFileSync(path.join(folder, 'something'), 'x');
      await expect(writeBackup(source as BackupSource, folder)).rejects.toThrow(/is not empty/);
    } finally {
      await source.close();
    }
  });
});
