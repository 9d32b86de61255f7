import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { checkKey, checkPrefix, type BlobEntry, type BlobInfo, type BlobStore, type ByteRange } from './blob-store';
import { guardStorage, isFolderUnreachable } from './storage-unavailable';

/**
 * Objects as files under a folder: the desktop's data folder, or a volume every node mounts (a NAS or SAN,
 * the way facilities already keep media). Writes go to a temporary name in the same folder, are flushed,
 * then renamed: a crash leaves the old object or the new one, never half of one. A folder that cannot be read
 * or written (a lost mount, a disk error, permissions) throws StorageUnavailableError.
 */
export class FolderBlobStore implements BlobStore {
  constructor(readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
  }

  get description(): string {
    return `folder ${this.root}`;
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    return this.guard(async () => {
      await this.atomically(key, async (temp) => {
        await fs.promises.writeFile(temp, data);
      });
    });
  }

  async putFile(key: string, file: string): Promise<void> {
    return this.guard(async () => {
      await this.atomically(key, async (temp) => {
        await pipeline(fs.createReadStream(file), fs.createWriteStream(temp));
      });
    });
  }

  async putIfAbsent(key: string, data: Buffer | string): Promise<boolean> {
    return this.guard(async () => {
      const target = this.file(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const temp = this.tempFor(target);
      await fs.promises.writeFile(temp, data);
      await flush(temp);
      try {
        // link() fails when the name exists: the first writer wins, atomically, also on NFS.
        await fs.promises.link(temp, target);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      } finally {
        await fs.promises.rm(temp, { force: true });
      }
    });
  }

  async get(key: string): Promise<Buffer | null> {
    return this.guard(async () => {
      try {
        return await fs.promises.readFile(this.file(key));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    });
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    return this.guard(async () => {
      const file = this.file(key);
      try {
        const handle = await fs.promises.open(file, 'r');
        return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    return this.guard(async () => {
      try {
        const stat = await fs.promises.stat(this.file(key));
        return stat.isFile() ? { size: stat.size, modified: stat.mtime } : null;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    });
  }

  async download(key: string, file: string): Promise<boolean> {
    return this.guard(async () => {
      try {
        // A clone where the file system has them (a dub's new revision starts as a copy of the previous one).
        await fs.promises.copyFile(this.file(key), file, fs.constants.COPYFILE_FICLONE);
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    });
  }

  async delete(key: string): Promise<void> {
    return this.guard(async () => {
      await fs.promises.rm(this.file(key), { force: true });
    });
  }

  async list(prefix: string): Promise<string[]> {
    return this.guard(async () => {
      const dir = path.join(this.root, checkPrefix(prefix));
      const entries = await fs.promises.readdir(dir, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
        if (isMissing(error)) return [];
        throw error;
      });
      return entries
        .filter((e) => e.isFile() && !e.name.startsWith('.tl-'))
        .map((e) => path.relative(this.root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    });
  }

  async entries(prefix: string): Promise<BlobEntry[]> {
    const found: BlobEntry[] = [];
    for (const key of await this.list(prefix)) {
      const info = await this.stat(key);
      if (info) found.push({ key, ...info });
    }
    return found;
  }

  /**
   * Moves a local file in under `key` without copying it (the desktop's uploads and recordings share the data
   * folder's disk): flushed, renamed, then the folder entry flushed. Another file system (EXDEV) falls back to
   * a copy.
   */
  async moveIn(key: string, file: string): Promise<void> {
    return this.guard(async () => {
      const target = this.file(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await flush(file);
      try {
        await fs.promises.rename(file, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        await this.putFile(key, file);
        await fs.promises.rm(file, { force: true });
        return;
      }
      await flushFolder(path.dirname(target));
    });
  }

  /** The object's file, for readers that need a local path (decoders, ffmpeg). */
  fileOf(key: string): string {
    return this.file(key);
  }

  async deletePrefix(prefix: string): Promise<number> {
    return this.guard(async () => {
      const keys = await this.list(prefix);
      if (prefix === '') for (const key of keys) await this.delete(key);
      else await fs.promises.rm(path.join(this.root, prefix), { recursive: true, force: true });
      return keys.length;
    });
  }

  private guard<T>(operation: () => Promise<T>): Promise<T> {
    return guardStorage(this.description, isFolderUnreachable, operation);
  }

  private file(key: string): string {
    return path.join(this.root, checkKey(key));
  }

  /** Hidden temporary names (`.tl-…`) next to the target, so the rename stays on one file system. */
  private tempFor(target: string): string {
    return path.join(path.dirname(target), `.tl-${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}`);
  }

  private async atomically(key: string, write: (temp: string) => Promise<void>): Promise<void> {
    const target = this.file(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temp = this.tempFor(target);
    try {
      await write(temp);
      await flush(temp);
      await fs.promises.rename(temp, target);
      await flushFolder(path.dirname(target));
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
  }
}

async function flush(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename durable: the folder entry itself must reach the disk. */
async function flushFolder(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(dir, 'r');
  } catch {
    return; // Some platforms (Windows) cannot open folders; the rename is still atomic there.
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic.
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
