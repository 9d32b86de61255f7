import crypto from 'node:crypto';
import os from 'node:os';
import type { WhisperDownload } from '../../../shared/schemas';
import type { StoredWhisperDownload, StoredWhisperModel, WhisperModelStore } from '../../storage/whisper-model-store';

/** How often a downloading node writes its progress (its lease too), and so how soon it sees a cancel through another node. */
export const DOWNLOAD_REPORT_MS = 1000;
/** A download whose node wrote nothing for this long is a dead node's: it reads as failed and another may start (pg-boss gives a worker's job 10 s). */
export const DOWNLOAD_STALE_MS = 15_000;
/** How long a cancel waits for the downloading node to say it stopped (as a job's cancel waits for its worker). */
const STOP_WAIT_MS = 30_000;

type ErrorCode = NonNullable<WhisperDownload['error']>['code'];

/** Whether a download's node stopped writing it without ending it (killed, or cut from the database) `staleMs` before `now`. */
export function isAbandoned(download: StoredWhisperDownload, now: number, staleMs = DOWNLOAD_STALE_MS): boolean {
  return download.finishedAt === null && Date.parse(download.updatedAt) < now - staleMs;
}

/** The API's document of a team's download as recorded: one whose node died reads as failed (`interrupted`), never as downloading forever. */
export function downloadDocument(download: StoredWhisperDownload, now: number, staleMs = DOWNLOAD_STALE_MS): WhisperDownload {
  const document: WhisperDownload = {
    status: download.status,
    received_bytes: download.receivedBytes,
    total_bytes: download.totalBytes,
    resumed_from: download.resumedFrom,
    started_at: download.startedAt,
    error: download.error && { code: download.error.code as ErrorCode, message: download.error.message },
  };
  if (download.status !== 'downloading' || !isAbandoned(download, now, staleMs)) return document;
  return {
    ...document,
    status: 'failed',
    error: { code: 'interrupted', message: `The node downloading it stopped reporting progress (nothing for ${Math.round(staleMs / 1000)} s); download it again.` },
  };
}

export interface TeamWhisperDownloadsOptions {
  store: WhisperModelStore;
  /** Tests shorten these. */
  reportMs?: number;
  staleMs?: number;
  log?(line: string): void;
}

/** What a running download has fetched so far, read at each report. */
export type DownloadProgressRead = () => { receivedBytes: number; totalBytes: number | null; resumedFrom: number };

/**
 * A team's Whisper model downloads, through any API node: each runs on the node that was asked first,
 * which records its progress in the database about once a second (its lease), so every node shows it; a second
 * request through any node joins it. A cancel or a delete through any node marks it cancelled; its node sees that
 * at its next report and stops, the way a worker stops a job whose record says cancelled (jobs/job-runner.ts).
 */
export class TeamWhisperDownloads {
  private rows = new Map<string, StoredWhisperDownload>();
  /** This node's running downloads, by model name. */
  private readonly mine = new Map<string, TeamDownload>();
  private readonly node = `${os.hostname()}:${process.pid}`;
  readonly staleMs: number;

  constructor(private readonly options: TeamWhisperDownloadsOptions) {
    this.staleMs = options.staleMs ?? DOWNLOAD_STALE_MS;
  }

  /** Reads every node's downloads. */
  async refresh(): Promise<void> {
    this.rows = new Map((await this.options.store.downloads()).map((d) => [d.name, d]));
  }

  /** A model's download as last read (or as this node last wrote it), or null. */
  document(name: string): WhisperDownload | null {
    const row = this.rows.get(name);
    return row ? downloadDocument(row, Date.now(), this.staleMs) : null;
  }

  /**
   * Starts the team's download of a model on this node, unless one runs on any node (then null, and its document
   * is read: the caller joins it). A download whose node died (see `isAbandoned`) is taken over.
   */
  async begin(name: string, start: { resumedFrom: number; startedAt: string }, progress: DownloadProgressRead): Promise<TeamDownload | null> {
    const now = Date.now();
    const row: StoredWhisperDownload = {
      name,
      attempt: crypto.randomUUID(),
      node: this.node,
      status: 'downloading',
      receivedBytes: start.resumedFrom,
      totalBytes: null,
      resumedFrom: start.resumedFrom,
      startedAt: start.startedAt,
      updatedAt: new Date(now).toISOString(),
      finishedAt: null,
      discard: false,
      error: null,
    };
    if (!(await this.options.store.claimDownload(row, new Date(now - this.staleMs).toISOString()))) {
      await this.reread(name);
      return null;
    }
    this.rows.set(name, row);
    const download = new TeamDownload(this.options.store, row, progress, this.options.reportMs ?? DOWNLOAD_REPORT_MS, this.options.log, (after) => {
      if (this.mine.get(name) === download) this.mine.delete(name);
      if (after) this.rows.set(name, after);
      else if (this.rows.get(name)?.attempt === row.attempt) this.rows.delete(name);
    });
    this.mine.set(name, download);
    return download;
  }

  /**
   * Stops a model's download on whichever node runs it and waits (a while) until that node says it stopped, or is
   * found dead. `discard` also deletes that node's partial file, and forgets a download that had ended.
   */
  async cancel(name: string, discard: boolean): Promise<void> {
    const store = this.options.store;
    if (await store.cancelDownload(name, discard)) this.mine.get(name)?.stop(discard);
    let row = await store.download(name);
    const attempt = row?.attempt;
    const deadline = Date.now() + STOP_WAIT_MS;
    while (row && row.attempt === attempt && row.finishedAt === null && !isAbandoned(row, Date.now(), this.staleMs) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, this.options.reportMs ?? DOWNLOAD_REPORT_MS)));
      row = await store.download(name);
    }
    if (discard && row && row.attempt === attempt && (row.finishedAt !== null || isAbandoned(row, Date.now(), this.staleMs))) await store.forgetDownload(name, row.attempt);
    await this.reread(name);
  }

  private async reread(name: string): Promise<void> {
    const row = await this.options.store.download(name);
    if (row) this.rows.set(name, row);
    else this.rows.delete(name);
  }
}

/** One running download of this node: reports its progress, and is aborted when cancelled through any node. */
export class TeamDownload {
  private readonly controller = new AbortController();
  /** Aborted when the download is cancelled through any node, or taken over by a node that found this one dead. */
  readonly signal = this.controller.signal;
  /** The cancel asked to delete the partial file too. */
  discard = false;
  private timer: NodeJS.Timeout | null = null;
  private reporting: Promise<void> = Promise.resolve();
  private quieted = false;
  private settled = false;

  constructor(
    private readonly store: WhisperModelStore,
    private readonly row: StoredWhisperDownload,
    private readonly progress: DownloadProgressRead,
    private readonly reportMs: number,
    private readonly log: ((line: string) => void) | undefined,
    private readonly onSettled: (row: StoredWhisperDownload | null) => void,
  ) {
    this.schedule();
  }

  get attempt(): string {
    return this.row.attempt;
  }

  /** Aborts the download (a cancel seen or asked on this node). */
  stop(discard: boolean): void {
    if (this.signal.aborted) return;
    this.discard = discard;
    this.controller.abort(new Error('cancelled'));
  }

  /** Records the downloaded model for the team; false when the download was cancelled (or taken over) first: nothing is recorded. */
  async complete(model: StoredWhisperModel): Promise<boolean> {
    await this.quiet();
    const recorded = await this.store.completeDownload(model, this.row.attempt);
    if (recorded) this.settle(null);
    return recorded;
  }

  /** Records how the download ended (a discarded cancel forgets it). */
  async end(outcome: { status: 'failed' | 'cancelled'; receivedBytes: number; error: { code: string; message: string } | null }): Promise<void> {
    if (this.settled) return;
    await this.quiet();
    const at = new Date().toISOString();
    try {
      if (this.discard) await this.store.forgetDownload(this.row.name, this.row.attempt);
      else await this.store.endDownload(this.row.name, this.row.attempt, { ...outcome, at });
    } finally {
      this.settle(this.discard ? null : { ...this.row, ...outcome, updatedAt: at, finishedAt: at, discard: false });
    }
  }

  private settle(after: StoredWhisperDownload | null): void {
    this.settled = true;
    this.onSettled(after);
  }

  /** Stops reporting, once the report under way is written (the outcome is written after it). */
  private async quiet(): Promise<void> {
    this.quieted = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.reporting;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.reporting = this.report().finally(() => {
        if (!this.quieted && !this.signal.aborted) this.schedule();
      });
    }, this.reportMs);
    this.timer.unref();
  }

  /** Writes the progress (and so renews the lease); a download no longer running under this attempt is stopped. */
  private async report(): Promise<void> {
    const { name, attempt } = this.row;
    try {
      const now = new Date().toISOString();
      const progress = this.progress();
      Object.assign(this.row, progress, { updatedAt: now });
      if (await this.store.reportDownload(name, attempt, { ...progress, updatedAt: now })) return;
      const row = await this.store.download(name);
      this.stop(row?.attempt === attempt && row.discard);
      if (row?.attempt !== attempt) this.log?.(`whisper: the download of ${name} was taken over by ${row?.node ?? 'nobody'}; this node stopped its own`);
    } catch (error) {
      // The database is unreachable for now: the next report tries again (a long outage lets another node take over).
      this.log?.(`whisper: could not record the download of ${name}: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
