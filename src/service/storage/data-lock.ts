import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { ConfigError } from '../config';

/**
 * One service per data folder. Two (the desktop app and `npm run serve`, say) would each resume the
 * other's running jobs after a restart and run them twice, and each keeps caches the other cannot see.
 * SQLite would stay consistent; the work would not. The lock is a file holding the owner's pid, created
 * exclusively; a lock left by a process that no longer exists (kill -9, power loss) is taken over.
 */
export class DataFolderInUseError extends ConfigError {}

/** Takes the lock or throws DataFolderInUseError; returns the function that releases it. */
export function acquireDataLock(file: string, folder: string, pid = process.pid): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return () => releaseDataLock(file, pid);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner !== null && owner !== pid && isAlive(owner)) {
      throw new DataFolderInUseError(
        `the data folder ${folder} is in use by another Takeline service (process ${owner}). ` +
          `Stop it, or set TAKELINE_DATA_DIR to another folder. If no Takeline is running, delete ${file}.`,
      );
    }
    // Stale (its process is gone) or unreadable (a crash between create and write): take it over.
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new DataFolderInUseError(`could not lock the data folder ${folder} (${file} keeps reappearing)`);
}

function releaseDataLock(file: string, pid: number): void {
  // Only our own lock: never remove one another process has taken over since.
  if (readOwner(file) !== pid) return;
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function readOwner(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
