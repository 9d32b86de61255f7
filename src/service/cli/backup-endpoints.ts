import fs from 'node:fs';
import type { BackupSource } from '../backup/backup';
import type { ServiceConfig } from '../config';
import { withPostgresSnapshot, withSqliteSnapshot } from '../storage/backup-tables';
import { FolderBlobStore } from '../storage/blobs/folder-blob-store';
import { openBlobStore, storageLocation } from '../storage/blobs/open-blob-store';
import { DataLayout } from '../storage/files';
import { openPostgresPool } from '../storage/sql/postgres-sql';

/** A source that is read and never changed: no migration, no folders made. */
export interface OpenSource extends BackupSource {
  /** Names it for messages, without passwords. */
  where: string;
  close(): Promise<void>;
}

/** A desktop's data folder as it is on disk: its SQLite file and its files (the folder is their store). */
export function desktopSource(dataDir: string): OpenSource {
  const layout = new DataLayout(dataDir);
  if (!fs.existsSync(layout.database)) throw new Error(`${dataDir} holds no Takeline database (takeline.db): not a data folder.`);
  return {
    where: dataDir,
    blobs: new FolderBlobStore(layout.root),
    snapshot: (work) => withSqliteSnapshot(layout.database, work),
    close: async () => {},
  };
}

/** The configured service's records and files: the team's PostgreSQL and storage, or the data folder. */
export async function configuredSource(config: ServiceConfig, env: NodeJS.ProcessEnv): Promise<OpenSource> {
  const layout = new DataLayout(config.dataDir);
  if (!config.databaseUrl && !env.TAKELINE_STORAGE_URL?.trim()) return desktopSource(config.dataDir);
  const blobs = await openBlobStore(storageLocation(env, layout));
  const closeBlobs = () => (blobs as Partial<{ close(): void }>).close?.();
  if (!config.databaseUrl) {
    if (!fs.existsSync(layout.database)) throw new Error(`${config.dataDir} holds no Takeline database (takeline.db).`);
    return { where: config.dataDir, blobs, snapshot: (work) => withSqliteSnapshot(layout.database, work), close: async () => closeBlobs() };
  }
  const pool = openPostgresPool(config.databaseUrl, 1);
  const url = new URL(config.databaseUrl);
  url.password = '';
  return {
    where: `${url.toString()} and ${blobs.description}`,
    blobs,
    snapshot: (work) => withPostgresSnapshot(pool, work),
    close: async () => {
      closeBlobs();
      await pool.end();
    },
  };
}
