import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_JOB } from '../analysis/analysis-job';
import { BackupFolderError, writeBackup } from '../backup/backup';
import { MANIFEST_FILE } from '../backup/format';
import { BackupInvalid, checkEmpty, restoreBackup, RestoreTargetNotEmpty, type RestoreSummary } from '../backup/restore';
import { ConfigError, loadConfig } from '../config';
import { openRecords } from '../persistence';
import { PgBossQueue } from '../queue/pg-boss-queue';
import type { BlobStore } from '../storage/blobs/blob-store';
import { openBlobStore, storageLocation } from '../storage/blobs/open-blob-store';
import type { Sql } from '../storage/sql/sql';
import { DataLayout } from '../storage/files';
import { desktopSource } from './backup-endpoints';
import { isUsageError, UsageError } from './usage';

const USAGE = `usage: npm run restore -- <backup folder>
       npm run restore -- --from-desktop <desktop data folder> [--work <folder>]
  Restores into TAKELINE_DATABASE_URL and TAKELINE_STORAGE_URL (a team), else TAKELINE_DATA_DIR, which must hold
  no data. --from-desktop moves a desktop's projects: it backs the folder up (into --work, kept, or a temporary
  folder) and restores that. A folder holding takeline.db and no ${MANIFEST_FILE} is taken as a desktop's.`;

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The configured target: its database (migrated to this Takeline's schema) and its storage, for `use`. */
async function withTarget<T>(use: (target: { sql: Sql; blobs: BlobStore; where: string }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const layout = new DataLayout(config.dataDir);
  if (!config.databaseUrl) fs.mkdirSync(layout.root, { recursive: true });
  const records = await openRecords(config.databaseUrl, layout);
  try {
    const blobs = await openBlobStore(storageLocation(process.env, layout));
    try {
      return await use({ sql: records.sql, blobs, where: `${records.where} and ${blobs.description}` });
    } finally {
      (blobs as Partial<{ close(): void }>).close?.();
    }
  } finally {
    await records.close();
  }
}

function restoreInto(folder: string): Promise<RestoreSummary> {
  return withTarget(async ({ sql, blobs, where }) => {
    const config = loadConfig();
    const queue = config.databaseUrl ? await PgBossQueue.open(config.databaseUrl, { log }) : null;
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-restore-'));
    try {
      log(`restoring ${folder} into ${where}`);
      return await restoreBackup(folder, { sql, blobs, dispatch: queue?.dispatch, backgroundKinds: [ANALYSIS_JOB], scratch: path.join(scratch, 'migrate.db') }, log);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
      await queue?.stop();
    }
  });
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { 'from-desktop': { type: 'string' }, work: { type: 'string' } } });
  const fromDesktop = values['from-desktop'] ?? (positionals.length === 1 && isDesktopFolder(positionals[0]!) ? positionals[0] : undefined);
  if (fromDesktop === undefined) {
    if (positionals.length !== 1 || values.work !== undefined) throw new UsageError(positionals.length ? 'give one backup folder' : 'no backup folder given');
    const summary = await restoreInto(path.resolve(positionals[0]!));
    report(summary);
    return 0;
  }
  if (values['from-desktop'] !== undefined && positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const dataDir = path.resolve(fromDesktop);
  if (dataDir === path.resolve(loadConfig().dataDir)) throw new UsageError('the desktop folder is the target itself: set TAKELINE_DATABASE_URL (and TAKELINE_STORAGE_URL) or another TAKELINE_DATA_DIR');
  // Refused now rather than after a backup of the whole folder (the restore checks again).
  await withTarget(checkEmpty);
  log(`${dataDir} is a desktop's data folder: backing it up first`);
  const work = values.work ? path.resolve(values.work) : fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-desktop-'));
  try {
    const source = desktopSource(dataDir);
    await writeBackup(source, work, log);
    report(await restoreInto(work));
    return 0;
  } finally {
    if (!values.work) fs.rmSync(work, { recursive: true, force: true });
  }
}

function isDesktopFolder(folder: string): boolean {
  return fs.existsSync(path.join(folder, 'takeline.db')) && !fs.existsSync(path.join(folder, MANIFEST_FILE));
}

function report(summary: RestoreSummary): void {
  process.stdout.write(
    `restored schema ${summary.schemaVersion} backup: ${summary.rows} rows, ${summary.files} files (${summary.bytes} bytes)` +
      `${summary.leftOut.length ? `; left out ${summary.leftOut.map((l) => `${l.kind} ${l.id}`).join(', ')} (deleted while the backup ran)` : ''}\n`,
  );
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    if (isUsageError(error)) {
      process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    const known = error instanceof ConfigError || error instanceof BackupInvalid || error instanceof RestoreTargetNotEmpty || error instanceof BackupFolderError;
    process.stderr.write(`takeline restore: ${known ? (error as Error).message : ((error as Error)?.stack ?? String(error))}\n`);
    process.exitCode = 1;
  },
);
