import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { checkKey, type BlobStore } from '../storage/blobs/blob-store';
import { backedUpTables, insertRows, removeLeftOut, restoreChangeCounters, tablesWithRows, unfinishedJobs, withSqliteSnapshot, type Row } from '../storage/backup-tables';
import { migrate, openDatabase } from '../storage/database';
import type { JobDispatch } from '../storage/job-store';
import { MIGRATIONS } from '../storage/migrations';
import { SqliteSql } from '../storage/sql/sqlite-sql';
import type { Sql } from '../storage/sql/sql';
import { eachLimited, fileDigest } from './digest';
import { blobFile, decodeRow, Manifest, MANIFEST_FILE, tableFile, type LeftOut } from './format';
import { STORED_ROOTS } from './named-files';

/** The backup cannot be restored as it is (unreadable, damaged, from a newer Takeline); nothing was written. */
export class BackupInvalid extends Error {}

/** The target already holds data: a restore goes only into an empty database and storage. */
export class RestoreTargetNotEmpty extends Error {}

export interface RestoreTarget {
  /** The target database, migrated to this Takeline's schema. */
  sql: Sql;
  blobs: BlobStore;
  /** Team mode: the queue engine, given the restored jobs still to run. */
  dispatch?: JobDispatch;
  /** Kinds whose work waits behind the others' (the queue's priority). */
  backgroundKinds?: readonly string[];
  /** Where a backup of an older schema is migrated forward (a scratch SQLite file). */
  scratch: string;
}

export interface RestoreSummary {
  schemaVersion: number;
  rows: number;
  files: number;
  bytes: number;
  leftOut: LeftOut[];
  jobsQueued: number;
}

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

/** Reads and checks the manifest: the format, and a schema this Takeline knows. */
export function readManifest(folder: string): Manifest {
  const file = path.join(folder, MANIFEST_FILE);
  if (!fs.existsSync(file)) throw new BackupInvalid(`${folder} holds no ${MANIFEST_FILE}: not a backup, or one that did not finish.`);
  let parsed: ReturnType<typeof Manifest.safeParse>;
  try {
    parsed = Manifest.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (error) {
    throw new BackupInvalid(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!parsed.success) throw new BackupInvalid(`${file} is not a Takeline backup manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const manifest = parsed.data;
  if (manifest.schema_version > LATEST) throw new BackupInvalid(`The backup was written by a newer Takeline (schema ${manifest.schema_version}; this one knows ${LATEST}).`);
  for (const blob of manifest.blobs) {
    try {
      checkKey(blob.key);
    } catch {
      throw new BackupInvalid(`The manifest names a file outside the backup: ${JSON.stringify(blob.key)}`);
    }
  }
  return manifest;
}

async function* lines(file: string): AsyncIterable<string> {
  const input = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of input) if (line !== '') yield line;
}

/** Checks every table file and stored file against the manifest's counts, sizes and sha256; lists what differs. */
export async function verifyBackup(folder: string, manifest: Manifest): Promise<string[]> {
  const problems: string[] = [];
  for (const table of manifest.tables) {
    const file = path.join(folder, tableFile(table.name));
    if (!fs.existsSync(file)) {
      problems.push(`${tableFile(table.name)} is missing`);
      continue;
    }
    const { sha256 } = await fileDigest(file);
    if (sha256 !== table.sha256) problems.push(`${tableFile(table.name)}: sha256 ${sha256}, the manifest says ${table.sha256}`);
    let rows = 0;
    for await (const line of lines(file)) {
      void line;
      rows++;
    }
    if (rows !== table.rows) problems.push(`${tableFile(table.name)}: ${rows} rows, the manifest says ${table.rows}`);
  }
  await eachLimited(manifest.blobs, 4, async (blob) => {
    const file = path.join(folder, blobFile(blob.key));
    if (!fs.existsSync(file)) return void problems.push(`${blobFile(blob.key)} is missing`);
    const { sha256, size } = await fileDigest(file);
    if (size !== blob.size || sha256 !== blob.sha256) problems.push(`${blobFile(blob.key)}: ${size} bytes, sha256 ${sha256}; the manifest says ${blob.size} bytes, ${blob.sha256}`);
  });
  return problems;
}

/** Refuses a target that holds rows or stored files. */
export async function checkEmpty(target: Pick<RestoreTarget, 'sql' | 'blobs'>): Promise<void> {
  const tables = await tablesWithRows(target.sql);
  if (tables.length) throw new RestoreTargetNotEmpty(`The target database holds data (${tables.join(', ')}); a restore goes into an empty database.`);
  for (const root of STORED_ROOTS) {
    if ((await target.blobs.list(root)).length) throw new RestoreTargetNotEmpty(`The target storage (${target.blobs.description}) holds files under ${root}; a restore goes into empty storage.`);
  }
}

/** The backup's rows, table by table, in this Takeline's schema: an older backup is migrated forward first. */
async function withCurrentRows<T>(folder: string, manifest: Manifest, scratch: string, work: (tables: string[], rows: (table: string) => AsyncIterable<Row[]>) => Promise<T>): Promise<T> {
  const fromFiles = async function* (table: string): AsyncIterable<Row[]> {
    let batch: Row[] = [];
    for await (const line of lines(path.join(folder, tableFile(table)))) {
      batch.push(decodeRow(line));
      if (batch.length === 500) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  };
  if (manifest.schema_version === LATEST) return work(manifest.tables.map((t) => t.name), fromFiles);
  // The backup's schema in a scratch database, its rows in, then the later migrations over them: the same steps
  // an installed Takeline takes when it is upgraded.
  fs.rmSync(scratch, { force: true });
  const db = openDatabase(scratch, MIGRATIONS.filter((m) => m.version <= manifest.schema_version));
  try {
    const sql = new SqliteSql(db);
    await sql.transaction(async (tx) => {
      for (const table of manifest.tables) for await (const batch of fromFiles(table.name)) await insertRows(tx, table.name, batch);
    });
    migrate(db, MIGRATIONS);
  } finally {
    db.close();
  }
  try {
    return await withSqliteSnapshot(scratch, (snapshot) => work(snapshot.tables, (table) => snapshot.rows(table)));
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(scratch + suffix, { force: true });
  }
}

/**
 * Restores a backup folder into an empty database and storage. Nothing is written until every table and file
 * matches the manifest. The files go first, then the rows in one transaction, so no restored row ever names a
 * file that is not there (the rule the service keeps). What the backup left out is left out, whole.
 */
export async function restoreBackup(folder: string, target: RestoreTarget, log: (line: string) => void = () => {}): Promise<RestoreSummary> {
  const manifest = readManifest(folder);
  const problems = await verifyBackup(folder, manifest);
  if (problems.length) throw new BackupInvalid(`The backup does not match its manifest (${problems.length} problem${problems.length === 1 ? '' : 's'}), nothing restored:\n  ${problems.slice(0, 20).join('\n  ')}`);
  log(`backup verified: schema ${manifest.schema_version}, ${manifest.tables.reduce((n, t) => n + t.rows, 0)} rows, ${manifest.blobs.length} files`);
  await checkEmpty(target);
  const known = new Set(await backedUpTables(target.sql));
  const unknown = manifest.tables.filter((t) => !known.has(t.name));
  if (manifest.schema_version === LATEST && unknown.length) throw new BackupInvalid(`The backup has tables this Takeline does not know: ${unknown.map((t) => t.name).join(', ')}.`);

  const leftOutRecordings = manifest.left_out.filter((l) => l.kind === 'recording').map((l) => l.id);
  const skipped = (key: string) => leftOutRecordings.some((id) => key.startsWith(`recordings/${id}/`));
  let bytes = 0;
  const files = manifest.blobs.filter((b) => !skipped(b.key));
  await eachLimited(files, 4, async (blob) => {
    await target.blobs.putFile(blob.key, path.join(folder, blobFile(blob.key)));
    bytes += blob.size;
  });
  log(`files stored: ${files.length} (${bytes} bytes) on ${target.blobs.description}`);

  let rows = 0;
  const jobs = await withCurrentRows(folder, manifest, target.scratch, (tables, rowsOf) =>
    target.sql.transaction(async (tx) => {
      const counters = new Map<string, number>();
      for (const table of tables) {
        for await (const batch of rowsOf(table)) {
          if (table === 'sessions') for (const row of batch) counters.set(String(row.id), Number(row.change_seq ?? 0));
          await insertRows(tx, table, batch);
          rows += batch.length;
        }
      }
      await removeLeftOut(tx, {
        recordings: leftOutRecordings,
        adaptations: manifest.left_out.filter((l) => l.kind === 'adaptation').map((l) => l.id),
        models: manifest.left_out.filter((l) => l.kind === 'model').map((l) => l.id),
      });
      await restoreChangeCounters(tx, counters);
      const pending = await unfinishedJobs(tx);
      // Queued in the same transaction as their rows, as the job store does.
      if (target.dispatch) for (const job of pending) await target.dispatch(tx, { ...job, background: target.backgroundKinds?.includes(job.kind) ?? false });
      return pending.length;
    }),
  );
  log(`rows restored: ${rows}${jobs ? `; ${jobs} unfinished job${jobs === 1 ? '' : 's'} queued again` : ''}`);
  for (const entry of manifest.left_out) log(`left out: ${entry.kind} ${entry.id} (deleted while the backup ran)`);
  return { schemaVersion: manifest.schema_version, rows, files: files.length, bytes, leftOut: manifest.left_out, jobsQueued: jobs };
}
