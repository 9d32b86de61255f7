import { StorageFullError } from '../errors';

/** True for the errors a full disk (or an exhausted quota) gives on write, from the file system or SQLite. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

export const DISK_FULL_JOB_MESSAGE = 'The disk holding the data folder filled up during processing. Free some space and retry.';

export const DISK_FULL_MESSAGE = 'The disk holding the data folder is full: nothing was stored. Free some space and try again.';

/** A write that found the disk full (what was stored before is untouched); shown as 507 Insufficient Storage. */
export function diskFullError(): StorageFullError {
  return new StorageFullError(DISK_FULL_MESSAGE, { code: 'insufficient_storage' });
}
