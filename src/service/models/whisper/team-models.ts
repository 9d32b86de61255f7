import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError, StorageFullError, UnavailableError, UpstreamError } from '../../errors';
import type { BlobStore } from '../../storage/blobs/blob-store';
import { downloadAside } from '../../storage/blobs/download-aside';
import type { StoredWhisperModel, WhisperModelStore } from '../../storage/whisper-model-store';
import { DownloadError, digestOfFile, spaceShortfall } from '../downloads/download-file';
import { TeamWhisperDownloads, type TeamDownload } from './team-downloads';

/** Where a team's model file lives on its blob store: named by its sha256, so a key's bytes never change. */
export function whisperBlobKey(sha256: string, file: string): string {
  return `speech-models/whisper/${sha256}/${file}`;
}

/** A fetch's temporary file left by a crash is removed once this old (another node sharing the folder may still be writing it). */
const STALE_PART_MS = 24 * 3600_000;

export interface TeamWhisperModelsOptions {
  store: WhisperModelStore;
  blobs: BlobStore;
  /** This node's copies of the team's models: `<dir>/<sha256>/<file>`. */
  cacheDir: string;
  /** Free bytes of a folder (tests simulate a full disk). */
  freeBytes?(dir: string): number;
  /** How often a downloading node reports, and after how long without a report its download counts as abandoned (tests shorten them). */
  downloadTiming?: { reportMs?: number; staleMs?: number };
  log?(line: string): void;
}

/**
 * A team's Whisper models: a model downloaded and verified on any node is stored once on the team's
 * blob store and recorded in the database, so every node lists it, and a node that runs it (a worker) first
 * fetches its own copy into `cacheDir`, checked against the recorded sha256, written aside and renamed, one fetch
 * per model at a time. What the database names is read on `refresh` (callers refresh before listing or choosing a
 * model); a refresh also removes this node's copies of models no longer recorded (deleted through any node).
 */
export class TeamWhisperModels {
  private records = new Map<string, StoredWhisperModel>();
  private reading: Promise<void> | null = null;
  private nextRead: Promise<void> | null = null;
  /** Fetches in flight, by sha256: concurrent transcriptions wanting one model share one download. */
  private readonly fetching = new Map<string, Promise<string>>();
  /** Local copies this process hashed, by path: the file version (size, mtime) it hashed. */
  private readonly verified = new Map<string, string>();
  /** The team's downloads in progress, through any node. */
  readonly downloads: TeamWhisperDownloads;

  constructor(private readonly options: TeamWhisperModelsOptions) {
    this.downloads = new TeamWhisperDownloads({ store: options.store, log: options.log, ...options.downloadTiming });
  }

  get cacheDir(): string {
    return this.options.cacheDir;
  }

  /** The installed model of that name as last refreshed, or null. */
  record(name: string): StoredWhisperModel | null {
    return this.records.get(name) ?? null;
  }

  /** Reads what the team installed and lets go of this node's copies of models no longer recorded. */
  refresh(): Promise<void> {
    if (!this.reading) return (this.reading = this.startRead());
    // The read under way may have begun before the caller's change (a delete through another node): one more read
    // starts after it, shared by everyone who asks meanwhile.
    this.nextRead ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.nextRead = null;
        return (this.reading = this.startRead());
      });
    return this.nextRead;
  }

  private startRead(): Promise<void> {
    const reading: Promise<void> = this.read().finally(() => {
      if (this.reading === reading) this.reading = null;
    });
    return reading;
  }

  /**
   * Makes a verified local file (the model's SHA-1 already checked against the published one) the team's: it is
   * stored on the blob store and recorded, then the local file goes. Downloads run on API nodes, which run no
   * model: workers fetch their own copies when they need one. Given the team's `download` of it, the model is recorded
   * only if that download was not cancelled (or the model deleted) through any node meanwhile; then nothing is
   * recorded, the stored file goes, and the local file stays for the caller.
   */
  async publish(model: { name: string; file: string; sha1: string }, file: string, download?: TeamDownload): Promise<StoredWhisperModel> {
    const sha256 = await digestOfFile(file, 'sha256');
    const { size } = await fs.promises.stat(file);
    const key = whisperBlobKey(sha256, model.file);
    try {
      await this.options.blobs.putFile(key, file);
    } catch (error) {
      throw new UpstreamError(`The team's storage (${this.options.blobs.description}) did not take ${model.file}: ${(error as Error).message}`, { code: 'storage_error' });
    }
    const record: StoredWhisperModel = { name: model.name, file: model.file, key, sha256, sha1: model.sha1, bytes: size, installedAt: new Date().toISOString() };
    if (!download) await this.options.store.save(record);
    else if (!(await download.complete(record))) {
      // The stored file stays when it is the same key as a model recorded meanwhile, or as another node's download may
      // be storing (one that took this one over): named by its sha256, it is theirs too.
      const [recorded, running] = await Promise.all([this.options.store.get(model.name), this.options.store.download(model.name)]);
      if (recorded?.key !== key && (!running || running.attempt === download.attempt)) await this.options.blobs.delete(key);
      throw new DownloadError('cancelled', 'The download was cancelled before the model was recorded.');
    }
    this.records.set(record.name, record);
    await fs.promises.rm(file, { force: true });
    this.options.log?.(`whisper: ${model.file} stored on ${this.options.blobs.description} for the team (${size} bytes, sha256 ${sha256.slice(0, 12)}…)`);
    return record;
  }

  /** Hashes the team's stored file of a model against its recorded sha256 (nothing is kept); throws when it is damaged or gone. */
  async verifyStored(name: string): Promise<StoredWhisperModel> {
    const record = this.records.get(name);
    if (!record) throw new NotFoundError(`The Whisper model "${name}" is not installed on this team.`, { code: 'model_not_found' });
    const stream = await this.options.blobs.read(record.key);
    if (!stream) throw this.missing(record);
    const hash = crypto.createHash('sha256');
    for await (const chunk of stream) hash.update(chunk as Buffer);
    this.assertIntact(record, hash.digest('hex'));
    return record;
  }

  /** This node's copy of an installed model: its path, once present and verified (fetched from the storage if not). */
  localFile(name: string, signal?: AbortSignal): Promise<string> {
    const record = this.records.get(name);
    if (!record) return Promise.reject(new NotFoundError(`The Whisper model "${name}" is not installed on this team.`, { code: 'model_not_found' }));
    let pending = this.fetching.get(record.sha256);
    if (!pending) {
      pending = this.fetch(record).finally(() => this.fetching.delete(record.sha256));
      // Its failure reaches every waiter through their own handlers (a waiter that gave up has none).
      pending.catch(() => undefined);
      this.fetching.set(record.sha256, pending);
    }
    if (!signal) return pending;
    // One waiter giving up does not stop a fetch others share.
    return new Promise<string>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
  }

  /** Where this node keeps its copy of a model. */
  localPath(record: StoredWhisperModel): string {
    return path.join(this.options.cacheDir, record.sha256, record.file);
  }

  /** Uninstalls a model for the whole team: its record, then its stored file and this node's copy. Other nodes drop theirs on their next refresh. */
  async remove(name: string): Promise<StoredWhisperModel | null> {
    const removed = await this.options.store.remove(name);
    this.records.delete(name);
    if (!removed) return null;
    // A download of the same model finishing on another node meanwhile stored the same key again: it stays.
    if ((await this.options.store.get(name))?.key !== removed.key) await this.options.blobs.delete(removed.key);
    if (!this.fetching.has(removed.sha256)) await fs.promises.rm(path.join(this.options.cacheDir, removed.sha256), { recursive: true, force: true });
    this.options.log?.(`whisper: ${removed.file} removed from the team's models`);
    return removed;
  }

  private async read(): Promise<void> {
    // The cache is listed before the records are read: a copy is only made of a recorded model, so every copy listed
    // whose model is still installed is named by the records read after (one made meanwhile on a shared folder too).
    const copies = await fs.promises.readdir(this.options.cacheDir).catch(() => [] as string[]);
    const records = await this.options.store.list();
    this.records = new Map(records.map((r) => [r.name, r]));
    const named = new Set(records.map((r) => r.sha256));
    for (const sha256 of copies) {
      if (this.fetching.has(sha256)) continue;
      const dir = path.join(this.options.cacheDir, sha256);
      if (!named.has(sha256)) {
        await fs.promises.rm(dir, { recursive: true, force: true });
        this.options.log?.(`whisper: removed this node's copy ${sha256.slice(0, 12)}… (no longer installed on the team)`);
        continue;
      }
      await removeStaleParts(dir);
    }
  }

  private async fetch(record: StoredWhisperModel): Promise<string> {
    const file = this.localPath(record);
    if (await this.isVerified(file, record)) return file;
    try {
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      await fs.promises.access(path.dirname(file), fs.constants.W_OK);
    } catch (error) {
      throw new UnavailableError(
        `This node cannot keep a copy of ${record.file}: ${this.options.cacheDir} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'}); give it a writable TAKELINE_MODELS_DIR.`,
        { code: 'not_writable' },
      );
    }
    const shortfall = spaceShortfall(path.dirname(file), record.bytes, this.options.freeBytes);
    if (shortfall) throw new StorageFullError(shortfall, { code: 'disk_full' });
    const started = Date.now();
    const fetched = await downloadAside(this.options.blobs, record.key, file, async (part) => this.assertIntact(record, await digestOfFile(part, 'sha256')));
    if (!fetched) throw this.missing(record);
    const stat = await fs.promises.stat(file);
    this.verified.set(file, `${stat.size}:${stat.mtimeMs}`);
    this.options.log?.(`whisper: fetched ${record.file} from the team's storage (${stat.size} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s, sha256 verified)`);
    return file;
  }

  private assertIntact(record: StoredWhisperModel, sha256: string): void {
    if (sha256 === record.sha256) return;
    throw new UpstreamError(`The team's copy of ${record.file} is damaged (sha256 ${sha256.slice(0, 12)}…, recorded ${record.sha256.slice(0, 12)}…); download the model again.`, {
      code: 'checksum_mismatch',
    });
  }

  private missing(record: StoredWhisperModel): NotFoundError {
    return new NotFoundError(`The Whisper model ${record.file} is missing from the team's storage (${this.options.blobs.description}); download it again.`, { code: 'file_missing' });
  }

  /** Whether the local copy is there with the recorded bytes (hashed once per file version per process). */
  private async isVerified(file: string, record: StoredWhisperModel): Promise<boolean> {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(file);
    } catch {
      return false;
    }
    const version = `${stat.size}:${stat.mtimeMs}`;
    if (this.verified.get(file) === version) return true;
    if (stat.size !== record.bytes || (await digestOfFile(file, 'sha256')) !== record.sha256) return false;
    this.verified.set(file, version);
    return true;
  }
}

async function removeStaleParts(dir: string): Promise<void> {
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith('.part')) continue;
    const file = path.join(dir, name);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > STALE_PART_MS) await fs.promises.rm(file, { force: true });
  }
}
