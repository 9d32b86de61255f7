import path from 'node:path';
import { BackupFolderError, writeBackup } from '../backup/backup';
import { ConfigError, loadConfig } from '../config';
import { configuredSource } from './backup-endpoints';

const USAGE = `usage: npm run backup -- <folder>
  Copies the database and the stored files consistently into <folder> (new or empty), while the service runs.
  The source is TAKELINE_DATABASE_URL and TAKELINE_STORAGE_URL (a team), else TAKELINE_DATA_DIR (a desktop).`;

async function main(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0]!.startsWith('-')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const folder = path.resolve(argv[0]!);
  const source = await configuredSource(loadConfig(), process.env);
  try {
    const started = Date.now();
    const manifest = await writeBackup(source, folder, (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(
      `backed up ${source.where} into ${folder} in ${((Date.now() - started) / 1000).toFixed(1)} s: schema ${manifest.schema_version}, ` +
        `${manifest.tables.reduce((n, t) => n + t.rows, 0)} rows, ${manifest.blobs.length} files` +
        `${manifest.left_out.length ? `, ${manifest.left_out.length} deleted while it ran left out` : ''}\n`,
    );
    return 0;
  } finally {
    await source.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof BackupFolderError;
    process.stderr.write(`takeline backup: ${known ? (error as Error).message : ((error as Error)?.stack ?? String(error))}\n`);
    process.exitCode = 1;
  },
);
