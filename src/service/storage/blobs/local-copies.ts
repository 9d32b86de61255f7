import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '../../errors';
import type { BlobStore } from './blob-store';
import { FolderBlobStore } from './folder-blob-store';
import { downloadAside } from './download-aside';

/** A local file holding a stored object, for readers that need a path (ffmpeg, the decoders). */
export interface LocalCopy {
  path: string;
  /** Done with it: a downloaded copy goes once its last user releases it. */
  release(): Promise<void>;
}

interface Held {
  file: string;
  ready: Promise<void>;
  users: number;
}

/**
 * Local files for stored objects. In a folder store the object's own file is used (nothing is copied); from
 * S3 the object is downloaded once into the scratch folder, shared by everyone using it at the same time,
 * and removed when the last one is done (a crash leaves it to the start-up sweep, which empties scratch).
 */
export class LocalCopies {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly scratch: string,
  ) {}

  async acquire(key: string): Promise<LocalCopy> {
    if (this.blobs instanceof FolderBlobStore)
      return { path: this.blobs.fileOf(key), release: async () => undefined };
    let entry = this.held.get(key);
    if (!entry) {
      const file = path.join(
        this.scratch,
        `blob-${crypto.createHash('sha256').update(key).digest('hex').slice(0, 24)}${path.extname(key)}`,
      );
      entry = { file, users: 0, ready: this.fetch(key, file) };
      this.held.set(key, entry);
    }
    entry.users++;
    try {
      await entry.ready;
    } catch (error) {
      await this.drop(key, entry);
      throw error;
    }
    let released = false;
    const held = entry;
    return {
      path: entry.file,
      release: async () => {
        if (released) return;
        released = true;
        await this.drop(key, held);
      },
    };
  }

  /** Runs `use` on a local copy of `key`, releasing it afterwards whatever happens. */
  async with<T>(key: string, use: (file: string) => Promise<T>): Promise<T> {
    const copy = await this.acquire(key);
    try {
      return await use(copy.path);
    } finally {
      await copy.release();
    }
  }

  /** How many downloaded copies are held now (for tests). */
  get size(): number {
    return this.held.size;
  }

  private async fetch(key: string, file: string): Promise<void> {
    if (!(await downloadAside(this.blobs, key, file)))
      throw new NotFoundError(`The stored file ${key} is missing from ${this.blobs.description}.`, {
        code: 'file_missing',
      });
  }

  private async drop(key: string, entry: Held): Promise<void> {
    entry.users--;
    if (entry.users > 0 || this.held.get(key) !== entry) return;
    this.held.delete(key);
    await fs.promises.rm(entry.file, { force: true });
  }
}
