import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../storage/blobs/blob-store';
import type { Snapshot } from '../storage/backup-tables';
import { writeFileAtomic } from '../storage/files';
import { eachLimited, fileDigest } from './digest';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, blobFile, encodeRow, MANIFEST_FILE, tableFile, type Manifest } from './format';
import { NamedFiles } from './named-files';

/** What to back up: a consistent read of the database (given to `work`, closed when it returns) and the files. */
export interface BackupSource {
  snapshot<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T>;
  blobs: BlobStore;
}

/** The backup's folder cannot be used (it holds something already). */
export class BackupFolderError extends Error {}

async function writeTable(snapshot: Snapshot, table: string, file: string, named: NamedFiles): Promise<{ rows: number; sha256: string }> {
  const out = fs.createWriteStream(file);
  const hash = crypto.createHash('sha256');
  let rows = 0;
  try {
    for await (const batch of snapshot.rows(table)) {
      let text = '';
      for (const row of batch) {
        named.observe(table, row);
        text += `${encodeRow(row)}\n`;
      }
      rows += batch.length;
      hash.update(text);
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  return { rows, sha256: hash.digest('hex') };
}

/**
 * Backs up a running Takeline into an empty (or new) folder. The rule that makes the copy consistent:
 *
 * 1. Every table is read in one snapshot (one database transaction), so the rows agree with each other.
 * 2. Then the files those rows name are copied. The service stores a file whole before the row naming it
 *    commits, and never rewrites a named file under the same key, so each named file exists and has the bytes
 *    it had at the snapshot, unless its owner was deleted since (a recording's rows go first, then its files).
 *    An owner whose named files are gone is listed in the manifest's `left_out`; a restore leaves it out, as if
 *    it had been deleted just before the snapshot.
 *
 * An upload in flight is either in the snapshot (its file was stored before its row committed) or not at all.
 */
export async function writeBackup(source: BackupSource, folder: string, log: (line: string) => void = () => {}): Promise<Manifest> {
  if (fs.existsSync(folder) && fs.readdirSync(folder).length > 0) throw new BackupFolderError(`${folder} is not empty; a backup goes into an empty or new folder.`);
  fs.mkdirSync(path.join(folder, 'tables'), { recursive: true });
  fs.mkdirSync(path.join(folder, 'blobs'), { recursive: true });
  const named = new NamedFiles();

  const { schemaVersion, dialect, tables } = await source.snapshot(async (snapshot) => {
    const tables: Manifest['tables'] = [];
    for (const name of snapshot.tables) {
      const { rows, sha256 } = await writeTable(snapshot, name, path.join(folder, tableFile(name)), named);
      tables.push({ name, rows, sha256 });
    }
    return { schemaVersion: snapshot.schemaVersion, dialect: snapshot.dialect, tables };
  });
  log(`database read (schema ${schemaVersion}): ${tables.reduce((n, t) => n + t.rows, 0)} rows in ${tables.length} tables`);

  const keys = new Set(named.singles());
  for (const folderKey of named.folders()) for (const key of await source.blobs.list(folderKey)) keys.add(key);
  const blobs: Manifest['blobs'] = [];
  const copied = new Set<string>();
  await eachLimited([...keys].sort(), 4, async (key) => {
    const file = path.join(folder, blobFile(key));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Gone since the listing or the snapshot: its owner was deleted meanwhile (see left_out below).
    if (!(await source.blobs.download(key, file))) return;
    blobs.push({ key, ...(await fileDigest(file)) });
    copied.add(key);
  });
  blobs.sort((a, b) => (a.key < b.key ? -1 : 1));
  const leftOut = named.leftOut(copied);
  for (const entry of leftOut) log(`left out: ${entry.kind} ${entry.id} (deleted while the backup ran: ${entry.missing.join(', ')} gone)`);

  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    created_at: new Date().toISOString(),
    schema_version: schemaVersion,
    source: { database: dialect, storage: source.blobs.description },
    tables,
    blobs,
    left_out: leftOut,
  };
  writeFileAtomic(path.join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  log(`files copied: ${blobs.length} (${blobs.reduce((n, b) => n + b.size, 0)} bytes)`);
  return manifest;
}
