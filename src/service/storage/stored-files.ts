import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobStore, ByteRange } from './blobs/blob-store';
import { FolderBlobStore } from './blobs/folder-blob-store';
import { LocalCopies, type LocalCopy } from './blobs/local-copies';
import type { DataLayout } from './files';

/**
 * A recording's files in the blob store, under the same names the data folder has always used, so the
 * desktop's store (a folder rooted at the data folder) keeps its layout exactly:
 *
 *   recordings/<session>/<original.ext>   the upload, byte for byte
 *   recordings/<session>/peaks.json       waveform peaks, derived
 *   recordings/<session>/dubs/<dub>/…     the recording's dubs (dubbing/dub-files.ts)
 *
 * Names come from ids the service made, never from client input.
 */
export const recordingKeys = {
  prefix: (sessionId: string) => `recordings/${sessionId}/`,
  original: (sessionId: string, storedName: string) => `recordings/${sessionId}/${storedName}`,
  peaks: (sessionId: string) => `recordings/${sessionId}/peaks.json`,
};

/** Where an object can be served from as a file (a folder store): the folder and the name inside it. */
export interface ServableFile {
  root: string;
  key: string;
}

/**
 * The service's files: recordings' originals and their derived files, in whichever blob store
 * TAKELINE_STORAGE_URL names (the data folder itself when unset), plus local copies for the decoders.
 */
export class StoredFiles {
  readonly copies: LocalCopies;

  constructor(
    readonly blobs: BlobStore,
    private readonly layout: DataLayout,
  ) {
    this.copies = new LocalCopies(blobs, layout.scratch);
  }

  /** True when the store is the data folder itself (the desktop default): its files are the objects. */
  get isDataFolder(): boolean {
    return this.blobs instanceof FolderBlobStore && this.blobs.root === this.layout.root;
  }

  /**
   * Stores an uploaded recording under its key, whole, and checks its size before anyone may point at it: the
   * database row is written only after this returns. The local upload is gone afterwards (moved or copied).
   */
  async storeOriginal(
    sessionId: string,
    storedName: string,
    upload: { path: string; size: number },
  ): Promise<void> {
    const key = recordingKeys.original(sessionId, storedName);
    await this.storeFile(key, upload.path);
    const stored = await this.blobs.stat(key);
    if (stored?.size !== upload.size)
      throw new Error(
        `The stored recording has ${stored?.size ?? 'no'} bytes, not the ${upload.size} uploaded.`,
      );
  }

  /**
   * Stores a finished local file under `key`, whole, before any row may name it; the local file is gone
   * afterwards. A folder store on the same disk takes it by a rename (no copy), others by an upload.
   */
  async storeFile(key: string, file: string): Promise<void> {
    if (this.blobs instanceof FolderBlobStore) await this.blobs.moveIn(key, file);
    else {
      await this.blobs.putFile(key, file);
      await fs.promises.rm(file, { force: true });
    }
  }

  /**
   * Copies an object into a local file the caller may change (a new revision starts as a copy of the one it
   * is based on): a clone where the file system offers one. False when there is no such object.
   */
  copyOut(key: string, file: string): Promise<boolean> {
    return this.blobs.download(key, file);
  }

  /** The object as a file to serve (folder stores), or null when it must be streamed from the store. */
  servable(key: string): ServableFile | null {
    if (!(this.blobs instanceof FolderBlobStore)) return null;
    return { root: this.blobs.root, key };
  }

  /** A local file of the recording's original for ffmpeg and the decoders; release it when done. */
  localOriginal(sessionId: string, storedName: string): Promise<LocalCopy> {
    return this.copies.acquire(recordingKeys.original(sessionId, storedName));
  }

  /** Runs `use` on a local file of the recording's original. */
  withOriginal<T>(sessionId: string, storedName: string, use: (file: string) => Promise<T>): Promise<T> {
    return this.copies.with(recordingKeys.original(sessionId, storedName), use);
  }

  /** The original as a file to serve (folder stores), or null when it must be streamed from the store. */
  servableOriginal(sessionId: string, storedName: string): ServableFile | null {
    return this.servable(recordingKeys.original(sessionId, storedName));
  }

  statOriginal(sessionId: string, storedName: string): Promise<BlobInfo | null> {
    return this.blobs.stat(recordingKeys.original(sessionId, storedName));
  }

  readOriginal(sessionId: string, storedName: string, range?: ByteRange): Promise<Readable | null> {
    return this.blobs.read(recordingKeys.original(sessionId, storedName), range);
  }

  async readPeaks(sessionId: string): Promise<string | null> {
    return (await this.blobs.get(recordingKeys.peaks(sessionId)))?.toString('utf8') ?? null;
  }

  writePeaks(sessionId: string, json: string): Promise<void> {
    return this.blobs.put(recordingKeys.peaks(sessionId), json);
  }

  /** Lets go of the store's connections (S3's client) when the service stops. */
  close(): void {
    (this.blobs as Partial<{ close(): void }>).close?.();
  }

  /** Removes every stored file of a recording (its original, derived files and dubs; with another store than the data folder, also the local folder older versions kept its dubs in). */
  async deleteRecording(sessionId: string): Promise<void> {
    await this.blobs.deletePrefix(recordingKeys.prefix(sessionId));
    if (!this.isDataFolder)
      await fs.promises.rm(this.layout.recording(sessionId), { recursive: true, force: true });
  }
}
