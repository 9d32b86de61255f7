import fs from 'node:fs';
import path from 'node:path';
import type { WhisperDownload, WhisperModel, WhisperModelList } from '../../../shared/schemas';
import { ConflictError, NotFoundError, ServiceError, type ServiceErrorKind } from '../../errors';
import { writeFileAtomic } from '../../storage/files';
import { DownloadError, downloadFile, partialPath, sha1OfFile } from '../downloads/download-file';
import { WHISPER_CATALOGUE, whisperEngineId, type WhisperCatalogueEntry } from './catalogue';
import { whisperModelFiles, type WhisperModelFile } from './installed';
import type { TeamDownload } from './team-downloads';
import type { TeamWhisperModels } from './team-models';

type WhisperDownloadErrorCode = NonNullable<WhisperDownload['error']>['code'];

/** Files this manager checked, keyed by file name: the SHA-1 it found and the version (size, mtime) it read. */
const MANIFEST = '.takeline-verified.json';
type Manifest = Record<string, { sha1: string; bytes: number; mtime_ms: number }>;

export interface WhisperModelManagerOptions {
  /** The Whisper folder (`<models>/whisper`). */
  dir: string;
  /** Downloads fetch `<baseUrl>/<file>`. */
  baseUrl: string;
  catalogue?: readonly WhisperCatalogueEntry[];
  /** Free bytes of a folder (tests simulate a full disk). */
  freeBytes?(dir: string): number;
  log?(line: string): void;
  /**
   * A team node's shared models: what is installed is what the team's database records, a finished
   * download goes to the team's storage, and deleting uninstalls for every node. Absent on the desktop.
   */
  team?: TeamWhisperModels;
}

interface Running {
  state: WhisperDownload;
  controller: AbortController;
  done: Promise<void>;
}

const FAILURE_KIND: Record<DownloadError['code'], ServiceErrorKind> = {
  disk_full: 'storage_full',
  not_writable: 'conflict',
  checksum_mismatch: 'upstream_failed',
  http_error: 'upstream_failed',
  network_error: 'upstream_failed',
  cancelled: 'conflict',
};

/** A failed download's code and message as the API shows them. */
function failureOf(error: unknown): { code: WhisperDownloadErrorCode; message: string } {
  if (error instanceof DownloadError) return { code: error.code, message: error.message };
  if (error instanceof ServiceError && error.detail.code === 'storage_error') return { code: 'storage_error', message: error.message };
  return { code: 'network_error', message: (error as Error)?.message ?? String(error) };
}

/** A team node's download that stopped because the node is stopping. */
const NODE_STOPPED = { code: 'interrupted', message: 'The node downloading it stopped; download it again.' } as const;

/**
 * The Whisper model manager: the catalogue with what is installed, downloads with progress that resume
 * (HTTP Range) and install only a file whose SHA-1 is the published one. On the desktop, download state lives in
 * memory; the `.part` file on disk is what survives a restart (asking again resumes from it). On a team node,
 * installed models are the team's (see TeamWhisperModels) and so are downloads: their progress is in the
 * database, and any node shows or cancels them (see TeamWhisperDownloads). Call `refresh` before reading.
 */
export class WhisperModelManager {
  private readonly running = new Map<string, Running>();
  /** The last download of each model that ended without installing it (failed or cancelled). */
  private readonly ended = new Map<string, WhisperDownload>();
  private readonly catalogue: readonly WhisperCatalogueEntry[];
  private closing = false;

  constructor(private readonly options: WhisperModelManagerOptions) {
    this.catalogue = options.catalogue ?? WHISPER_CATALOGUE;
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Reads what a team installed and is downloading (through any node); nothing to read on the desktop, whose files are read on every listing. */
  async refresh(): Promise<void> {
    const team = this.options.team;
    if (team) await Promise.all([team.refresh(), team.downloads.refresh()]);
  }

  list(): WhisperModelList {
    // A team lists what its database records; files put in one node's folder by hand are that node's alone.
    const files = new Map(this.options.team ? [] : this.installedFiles().map((f) => [f.name, f]));
    const manifest = this.options.team ? {} : this.readManifest();
    const data = [
      ...this.catalogue.map((entry) => this.describe(entry.name, entry, files.get(entry.name) ?? null, manifest)),
      ...[...files.values()].filter((f) => f.catalogue === null).map((f) => this.describe(f.name, null, f, manifest)),
    ];
    return { models_dir: this.dir, writable: this.writable(), base_url: this.options.baseUrl, free_bytes: this.freeBytes(), shared: this.options.team !== undefined, data };
  }

  model(name: string): WhisperModel {
    const found = this.list().data.find((m) => m.name === name || m.id === name);
    if (!found) throw new NotFoundError(`No Whisper model "${name}". Known: ${this.catalogue.map((e) => e.name).join(', ')}.`);
    return found;
  }

  /**
   * Starts (or resumes) a download and resolves once the server answered and the space is known to
   * suffice, so refusals (507 disk full, 409 read-only folder, 502 server) reach the caller; the transfer
   * then runs on. An installed, verified model or a download in progress is returned as it is. `started`: a
   * download runs for this request — begun now or, on a team, one already running on any node, which it joins
   * (the desktop answers a repeated request with its running download, not started).
   */
  async download(name: string): Promise<{ model: WhisperModel; started: boolean }> {
    const entry = this.entry(name);
    const current = this.model(entry.name);
    const team = this.options.team;
    if (current.installed && current.verified === true) return { model: current, started: false };
    if (this.running.has(entry.name)) return { model: current, started: team !== undefined };

    const controller = new AbortController();
    const state: WhisperDownload = {
      status: 'downloading',
      received_bytes: current.partial_bytes,
      total_bytes: null,
      resumed_from: current.partial_bytes,
      started_at: new Date().toISOString(),
      error: null,
    };
    // On a team one download of a model runs at a time, on whichever node claims it first.
    const claimed = team
      ? await team.downloads.begin(entry.name, { resumedFrom: state.resumed_from, startedAt: state.started_at }, () => ({
          receivedBytes: state.received_bytes,
          totalBytes: state.total_bytes,
          resumedFrom: state.resumed_from,
        }))
      : null;
    if (team && !claimed) return { model: this.model(entry.name), started: true };
    const dest = path.join(this.dir, entry.file);
    let announce: () => void = () => {};
    const started = new Promise<void>((resolve) => (announce = resolve));
    const fetched = downloadFile({
      url: `${this.options.baseUrl.replace(/\/+$/, '')}/${entry.file}`,
      dest,
      sha1: entry.sha1,
      signal: claimed ? AbortSignal.any([controller.signal, claimed.signal]) : controller.signal,
      freeBytes: this.options.freeBytes,
      onStart: ({ totalBytes, resumedFrom }) => {
        state.total_bytes = totalBytes;
        state.resumed_from = resumedFrom;
        state.received_bytes = resumedFrom;
        announce();
      },
      onProgress: (received, total) => {
        state.received_bytes = received;
        state.total_bytes = total;
      },
    });
    // On a team the verified file then goes to the team's storage (the download is done once it is recorded there).
    const done = team && claimed ? fetched.then(() => team.publish(entry, dest, claimed)).then(() => undefined) : fetched;
    const running: Running = { state, controller, done: Promise.resolve() };
    const release = () => {
      if (this.running.get(entry.name) === running) this.running.delete(entry.name);
    };
    const finished = done.then(
      () => {
        release();
        if (team) return;
        const stat = fs.statSync(dest);
        this.record(entry.file, { sha1: entry.sha1, bytes: stat.size, mtime_ms: stat.mtimeMs });
        this.options.log?.(`whisper: installed ${entry.file} (${stat.size} bytes, SHA-1 verified)`);
      },
      async (error: unknown) => {
        const failure = failureOf(error);
        if (claimed) {
          await this.endTeamDownload(claimed, entry, failure).finally(release);
          throw error;
        }
        release();
        this.ended.set(entry.name, {
          ...state,
          status: failure.code === 'cancelled' ? 'cancelled' : 'failed',
          received_bytes: this.partialBytes(entry.file),
          error: failure,
        });
        if (failure.code !== 'cancelled') this.options.log?.(`whisper: download of ${entry.file} failed: ${failure.message}`);
        throw error;
      },
    );
    running.done = finished;
    finished.catch(() => {});
    this.running.set(entry.name, running);
    this.ended.delete(entry.name);
    try {
      await Promise.race([started, finished]);
    } catch (error) {
      if (!(error instanceof DownloadError)) throw error;
      throw new ServiceError(FAILURE_KIND[error.code], error.message, { code: error.code });
    }
    return { model: this.model(entry.name), started: true };
  }

  /** Resolves when the model's current download ends (tests and shutdown); never rejects. */
  async settled(name: string): Promise<void> {
    await this.running.get(this.entry(name).name)?.done.catch(() => {});
  }

  /**
   * Stops a download; the bytes stay for resuming unless `discard`. On a team, the download on whichever node runs
   * it: the bytes kept are that node's partial file (`discard` deletes it, and this node's own).
   */
  async cancel(name: string, discard: boolean): Promise<WhisperModel> {
    const entry = this.entry(name);
    const running = this.running.get(entry.name);
    if (this.options.team) {
      await this.options.team.downloads.cancel(entry.name, discard);
      await running?.done.catch(() => {});
      if (discard) fs.rmSync(partialPath(path.join(this.dir, entry.file)), { force: true });
      return this.model(entry.name);
    }
    if (running) {
      running.controller.abort();
      await running.done.catch(() => {});
    }
    if (discard) {
      fs.rmSync(partialPath(path.join(this.dir, entry.file)), { force: true });
      this.ended.delete(entry.name);
    }
    return this.model(entry.name);
  }

  /** Deletes an installed model (and any partial download of it); on a team, for every node. */
  async remove(name: string): Promise<void> {
    const model = this.model(name);
    if (model.catalogued) await this.cancel(model.name, true);
    if (!model.installed && !model.catalogued) throw new NotFoundError(`No Whisper model "${name}".`);
    if (this.options.team) {
      await this.options.team.remove(model.name);
      return;
    }
    fs.rmSync(path.join(this.dir, model.file), { force: true });
    const manifest = this.readManifest();
    if (manifest[model.file]) {
      delete manifest[model.file];
      this.writeManifest(manifest);
    }
  }

  /** Hashes an installed catalogue model (one put in place by hand) against its published SHA-1. */
  async verify(name: string): Promise<WhisperModel> {
    const entry = this.entry(name);
    if (this.options.team) {
      // A team's model was checked against the published SHA-1 where it was downloaded; this checks the stored
      // file against the sha256 recorded then.
      if (!this.options.team.record(entry.name)) throw new ConflictError(`${entry.file} is not installed; download it first.`);
      await this.options.team.verifyStored(entry.name);
      return this.model(entry.name);
    }
    const file = path.join(this.dir, entry.file);
    if (!fs.existsSync(file)) throw new ConflictError(`${entry.file} is not installed; download it first.`);
    const stat = fs.statSync(file);
    const sha1 = await sha1OfFile(file);
    this.record(entry.file, { sha1, bytes: stat.size, mtime_ms: stat.mtimeMs });
    return this.model(entry.name);
  }

  /** Stops every download (service shutdown); their parts stay for resuming. */
  async close(): Promise<void> {
    this.closing = true;
    const all = [...this.running.values()];
    for (const r of all) r.controller.abort();
    await Promise.allSettled(all.map((r) => r.done));
  }

  /**
   * Records how this node's team download ended. A verified file the team did not take (its storage refused it, or a
   * cancel came first) becomes the partial file again, so asking again verifies it rather than downloading it again.
   */
  private async endTeamDownload(download: TeamDownload, entry: WhisperCatalogueEntry, failure: { code: WhisperDownloadErrorCode; message: string }): Promise<void> {
    const dest = path.join(this.dir, entry.file);
    const part = partialPath(dest);
    if (fs.existsSync(dest)) fs.renameSync(dest, part);
    if (download.discard) fs.rmSync(part, { force: true });
    const stopped = this.closing && failure.code === 'cancelled';
    if (!stopped && failure.code !== 'cancelled') this.options.log?.(`whisper: download of ${entry.file} failed: ${failure.message}`);
    try {
      await download.end({
        status: failure.code === 'cancelled' && !stopped ? 'cancelled' : 'failed',
        receivedBytes: this.partialBytes(entry.file),
        error: stopped ? NODE_STOPPED : failure,
      });
    } catch (error) {
      // Unrecorded, the download reads as abandoned once its lease runs out (then another can start).
      this.options.log?.(`whisper: could not record how the download of ${entry.file} ended: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private entry(name: string): WhisperCatalogueEntry {
    const entry = this.catalogue.find((e) => e.name === name || whisperEngineId(e.name) === name);
    if (entry) return entry;
    const local = this.installedFiles().find((f) => f.name === name || f.id === name);
    if (local) throw new ConflictError(`${path.basename(local.file)} was put in the folder by hand; it has no published checksum to download or verify against.`);
    throw new NotFoundError(`No Whisper model "${name}" in the catalogue. Known: ${this.catalogue.map((e) => e.name).join(', ')}.`);
  }

  private installedFiles(): WhisperModelFile[] {
    return whisperModelFiles(this.dir, this.catalogue);
  }

  private describe(name: string, entry: WhisperCatalogueEntry | null, file: WhisperModelFile | null, manifest: Manifest): WhisperModel {
    const fileName = entry?.file ?? path.basename(file!.file);
    let bytes: number | null = null;
    let verified: boolean | null = null;
    const shared = this.options.team?.record(name) ?? null;
    if (shared) {
      bytes = shared.bytes;
      verified = entry ? shared.sha1 === entry.sha1 : null;
    } else if (file) {
      const stat = fs.statSync(file.file);
      bytes = stat.size;
      const checked = manifest[fileName];
      if (checked && checked.bytes === stat.size && checked.mtime_ms === stat.mtimeMs && entry) verified = checked.sha1 === entry.sha1;
    }
    const running = this.running.get(name);
    return {
      name,
      id: whisperEngineId(name),
      file: fileName,
      catalogued: entry !== null,
      size: entry?.disk ?? null,
      sha1: entry?.sha1 ?? null,
      multilingual: entry?.multilingual ?? file!.multilingual,
      quantized: entry?.quantized ?? false,
      rank: entry?.rank ?? file!.rank,
      installed: file !== null || shared !== null,
      bytes,
      verified,
      partial_bytes: entry ? this.partialBytes(entry.file) : 0,
      download: running ? { ...running.state } : this.options.team ? this.options.team.downloads.document(name) : (this.ended.get(name) ?? null),
    };
  }

  private partialBytes(file: string): number {
    try {
      return fs.statSync(partialPath(path.join(this.dir, file))).size;
    } catch {
      return 0;
    }
  }

  /** Whether the folder (or, before it exists, its nearest existing parent) can be written; creates nothing, since reading the catalogue must not change the data folder. */
  private writable(): boolean {
    try {
      fs.accessSync(nearestExisting(this.dir), fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  private freeBytes(): number | null {
    try {
      if (this.options.freeBytes) return this.options.freeBytes(this.dir);
      const stats = fs.statfsSync(nearestExisting(this.dir));
      return stats.bavail * stats.bsize;
    } catch {
      return null;
    }
  }

  private readManifest(): Manifest {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, MANIFEST), 'utf8')) as Manifest;
    } catch {
      return {};
    }
  }

  private writeManifest(manifest: Manifest): void {
    writeFileAtomic(path.join(this.dir, MANIFEST), JSON.stringify(manifest, null, 2));
  }

  private record(file: string, check: Manifest[string]): void {
    this.writeManifest({ ...this.readManifest(), [file]: check });
  }
}

/** The folder itself, or its nearest parent that exists (the models folder is made on first download). */
function nearestExisting(dir: string): string {
  let current = dir;
  while (!fs.existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}
