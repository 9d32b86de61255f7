import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from './blob-store';

/**
 * Copies an object into the local `file` through a temporary file beside it, renamed into place only once whole
 * and accepted by `check` (which throws to refuse it): a reader never sees half a copy, and concurrent copies of
 * one object (two nodes sharing a folder) do not mix. False when there is no such object; nothing is left behind
 * when it fails.
 */
export async function downloadAside(blobs: BlobStore, key: string, file: string, check?: (part: string) => Promise<void>): Promise<boolean> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const part = `${file}.${crypto.randomBytes(4).toString('hex')}.part`;
  try {
    if (!(await blobs.download(key, part))) return false;
    await check?.(part);
    await fs.promises.rename(part, file);
    return true;
  } finally {
    await fs.promises.rm(part, { force: true });
  }
}
