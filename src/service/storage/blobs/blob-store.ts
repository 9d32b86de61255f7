import type { Readable } from 'node:stream';

/** Bytes `start`–`end` of an object, both inclusive (HTTP's Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobInfo {
  size: number;
  modified: Date;
}

/** A listed object with its size and when it was last written (for sweeps that spare fresh objects). */
export interface BlobEntry extends BlobInfo {
  key: string;
}

/**
 * Where recordings, dubs and derived files live: a folder (the desktop's data folder, or a shared volume
 * every node mounts) or an S3-compatible bucket. Keys are `/`-separated paths without `..`. A write is
 * whole or absent: readers never see half an object. ffmpeg and the decoders read local files, so work on
 * an object starts with `download` into a scratch folder.
 */
export interface BlobStore {
  /** What the store is, for logs and errors (no credentials). */
  readonly description: string;
  put(key: string, data: Buffer | string): Promise<void>;
  /** Stores a local file under `key` (streamed: recordings are large). */
  putFile(key: string, file: string): Promise<void>;
  /**
   * Stores `data` only when nothing is stored under `key`: false when something is (another node was
   * first), and the stored object is left as it was.
   */
  putIfAbsent(key: string, data: Buffer | string): Promise<boolean>;
  /** The whole object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the object (or of a range of it), or null when there is none. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Copies the object into a local file; false when there is no such object. */
  download(key: string, file: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Every key under `prefix` (a folder: ends with `/`), in no particular order. */
  list(prefix: string): Promise<string[]>;
  /** Like `list`, with each object's size and last write. */
  entries(prefix: string): Promise<BlobEntry[]>;
  /** Deletes every object under `prefix`; returns how many. */
  deletePrefix(prefix: string): Promise<number>;
}

/** Refuses keys that could leave the store's root or name nothing. */
export function checkKey(key: string): string {
  if (!key || key.startsWith('/') || key.endsWith('/') || key.split('/').some((part) => part === '' || part === '.' || part === '..') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`Not a storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** A prefix is empty (everything) or a folder path ending with `/`. */
export function checkPrefix(prefix: string): string {
  if (prefix !== '') checkKey(prefix.slice(0, -1));
  if (prefix !== '' && !prefix.endsWith('/')) throw new Error(`A storage prefix ends with "/": ${JSON.stringify(prefix)}`);
  return prefix;
}
