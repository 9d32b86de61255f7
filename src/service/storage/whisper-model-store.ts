import type { Sql } from './sql/sql';

/** A Whisper model installed for a whole team: its file is on the team's blob store under `key`. */
export interface StoredWhisperModel {
  /** The catalogue name (`base.en`). */
  name: string;
  /** The ggml file's name (`ggml-base.en.bin`). */
  file: string;
  /** Blob key of the file; named by its sha256, so the bytes under a key never change. */
  key: string;
  /** SHA-256 of the file: what a node checks its local copy against. */
  sha256: string;
  /** SHA-1 of the file, as the catalogue publishes it (checked by the node that downloaded it). */
  sha1: string;
  bytes: number;
  installedAt: string;
}

/** A model's download through a team node: the one in progress, or the last one that ended without installing it. */
export interface StoredWhisperDownload {
  name: string;
  /** Names this download: its node writes only under it, so a node whose download another took over changes nothing. */
  attempt: string;
  /** The node running it (host and process), for operators: its partial file is there. */
  node: string;
  /** `cancelled` with `finishedAt` null: asked to stop (through any node); its node has not yet stopped. */
  status: 'downloading' | 'failed' | 'cancelled';
  receivedBytes: number;
  totalBytes: number | null;
  resumedFrom: number;
  startedAt: string;
  /** The node's last write: its lease (a running download not updated for a while is a dead node's). */
  updatedAt: string;
  finishedAt: string | null;
  /** A cancel that also deletes the downloading node's partial file. */
  discard: boolean;
  error: { code: string; message: string } | null;
}

/** What a running download's node reports about once a second. */
export interface WhisperDownloadProgress {
  receivedBytes: number;
  totalBytes: number | null;
  resumedFrom: number;
  updatedAt: string;
}

/**
 * The `whisper_models` and `whisper_model_downloads` tables (this store's alone): the Whisper models a team
 * installed, and their downloads through any node. Only a team's nodes use them; the desktop keeps its models as
 * files in its own folder (models/whisper/) and its downloads in memory.
 */
export interface WhisperModelStore {
  list(): Promise<StoredWhisperModel[]>;
  get(name: string): Promise<StoredWhisperModel | null>;
  /** Records a model (inserted, or replacing the one stored under its name). */
  save(model: StoredWhisperModel): Promise<void>;
  /** Forgets a model; returns what was stored, or null when nothing was. */
  remove(name: string): Promise<StoredWhisperModel | null>;

  downloads(): Promise<StoredWhisperDownload[]>;
  download(name: string): Promise<StoredWhisperDownload | null>;
  /**
   * Starts a download unless another is running: inserted, or replacing one that ended or whose node stopped
   * writing before `staleBefore`. False when a live download holds the name (the caller joins it).
   */
  claimDownload(download: StoredWhisperDownload, staleBefore: string): Promise<boolean>;
  /** A running download's progress (and lease); false when it is no longer running under `attempt` (cancelled, taken over). */
  reportDownload(name: string, attempt: string, progress: WhisperDownloadProgress): Promise<boolean>;
  /** Asks a running download to stop; false when none was running. */
  cancelDownload(name: string, discard: boolean): Promise<boolean>;
  /** Records how a download ended (its node stopped it), if it is still `attempt`'s. */
  endDownload(name: string, attempt: string, end: { status: 'failed' | 'cancelled'; receivedBytes: number; error: { code: string; message: string } | null; at: string }): Promise<void>;
  /** Forgets an attempt's download (a discarded cancel). */
  forgetDownload(name: string, attempt: string): Promise<void>;
  /**
   * Records a downloaded model, in one transaction with ending its download: only while `attempt` is still
   * running, so a cancel or a delete through any node that came first leaves nothing recorded. False then.
   */
  completeDownload(model: StoredWhisperModel, attempt: string): Promise<boolean>;
}

interface Row {
  name: string;
  file: string;
  blob_key: string;
  sha256: string;
  sha1: string;
  bytes: number | string;
  installed_at: string;
}

const COLUMNS = 'name, file, blob_key, sha256, sha1, bytes, installed_at';

interface DownloadRow {
  name: string;
  attempt: string;
  node: string;
  status: StoredWhisperDownload['status'];
  received_bytes: number | string;
  total_bytes: number | string | null;
  resumed_from: number | string;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
  discard: number | string;
  error_json: string | null;
}

const DOWNLOAD_COLUMNS = 'name, attempt, node, status, received_bytes, total_bytes, resumed_from, started_at, updated_at, finished_at, discard, error_json';

function downloadFromRow(row: DownloadRow): StoredWhisperDownload {
  return {
    name: row.name,
    attempt: row.attempt,
    node: row.node,
    status: row.status,
    receivedBytes: Number(row.received_bytes),
    totalBytes: row.total_bytes === null ? null : Number(row.total_bytes),
    resumedFrom: Number(row.resumed_from),
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    discard: Number(row.discard) === 1,
    error: row.error_json === null ? null : (JSON.parse(row.error_json) as StoredWhisperDownload['error']),
  };
}

function fromRow(row: Row): StoredWhisperModel {
  return { name: row.name, file: row.file, key: row.blob_key, sha256: row.sha256, sha1: row.sha1, bytes: Number(row.bytes), installedAt: row.installed_at };
}

export class SqlWhisperModelStore implements WhisperModelStore {
  constructor(private readonly sql: Sql) {}

  async list(): Promise<StoredWhisperModel[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM whisper_models ORDER BY name`)).map(fromRow);
  }

  async get(name: string): Promise<StoredWhisperModel | null> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM whisper_models WHERE name = ?`, [name]);
    return row ? fromRow(row) : null;
  }

  async save(model: StoredWhisperModel): Promise<void> {
    await this.sql.run(
      `INSERT INTO whisper_models (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET file = excluded.file, blob_key = excluded.blob_key, sha256 = excluded.sha256, sha1 = excluded.sha1,
         bytes = excluded.bytes, installed_at = excluded.installed_at`,
      [model.name, model.file, model.key, model.sha256, model.sha1, model.bytes, model.installedAt],
    );
  }

  async remove(name: string): Promise<StoredWhisperModel | null> {
    return this.sql.transaction(async (tx) => {
      const row = await tx.get<Row>(`SELECT ${COLUMNS} FROM whisper_models WHERE name = ?`, [name]);
      if (row) await tx.run('DELETE FROM whisper_models WHERE name = ?', [name]);
      return row ? fromRow(row) : null;
    });
  }

  async downloads(): Promise<StoredWhisperDownload[]> {
    return (await this.sql.all<DownloadRow>(`SELECT ${DOWNLOAD_COLUMNS} FROM whisper_model_downloads ORDER BY name`)).map(downloadFromRow);
  }

  async download(name: string): Promise<StoredWhisperDownload | null> {
    const row = await this.sql.get<DownloadRow>(`SELECT ${DOWNLOAD_COLUMNS} FROM whisper_model_downloads WHERE name = ?`, [name]);
    return row ? downloadFromRow(row) : null;
  }

  async claimDownload(d: StoredWhisperDownload, staleBefore: string): Promise<boolean> {
    // One statement, so two nodes claiming at once cannot both win: the row's lock (PostgreSQL) or the single
    // writer (SQLite) orders them, and the second sees the first's live row.
    const { changes } = await this.sql.run(
      `INSERT INTO whisper_model_downloads (${DOWNLOAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET attempt = excluded.attempt, node = excluded.node, status = excluded.status,
         received_bytes = excluded.received_bytes, total_bytes = excluded.total_bytes, resumed_from = excluded.resumed_from,
         started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = excluded.finished_at,
         discard = excluded.discard, error_json = excluded.error_json
       WHERE whisper_model_downloads.finished_at IS NOT NULL OR whisper_model_downloads.updated_at < ?`,
      [
        d.name,
        d.attempt,
        d.node,
        d.status,
        d.receivedBytes,
        d.totalBytes,
        d.resumedFrom,
        d.startedAt,
        d.updatedAt,
        d.finishedAt,
        d.discard ? 1 : 0,
        d.error === null ? null : JSON.stringify(d.error),
        staleBefore,
      ],
    );
    return changes === 1;
  }

  async reportDownload(name: string, attempt: string, p: WhisperDownloadProgress): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE whisper_model_downloads SET received_bytes = ?, total_bytes = ?, resumed_from = ?, updated_at = ? WHERE name = ? AND attempt = ? AND status = 'downloading'",
      [p.receivedBytes, p.totalBytes, p.resumedFrom, p.updatedAt, name, attempt],
    );
    return changes === 1;
  }

  async cancelDownload(name: string, discard: boolean): Promise<boolean> {
    const { changes } = await this.sql.run("UPDATE whisper_model_downloads SET status = 'cancelled', discard = ? WHERE name = ? AND status = 'downloading'", [
      discard ? 1 : 0,
      name,
    ]);
    return changes === 1;
  }

  async endDownload(name: string, attempt: string, end: { status: 'failed' | 'cancelled'; receivedBytes: number; error: { code: string; message: string } | null; at: string }): Promise<void> {
    await this.sql.run('UPDATE whisper_model_downloads SET status = ?, received_bytes = ?, error_json = ?, updated_at = ?, finished_at = ? WHERE name = ? AND attempt = ?', [
      end.status,
      end.receivedBytes,
      end.error === null ? null : JSON.stringify(end.error),
      end.at,
      end.at,
      name,
      attempt,
    ]);
  }

  async forgetDownload(name: string, attempt: string): Promise<void> {
    await this.sql.run('DELETE FROM whisper_model_downloads WHERE name = ? AND attempt = ?', [name, attempt]);
  }

  async completeDownload(model: StoredWhisperModel, attempt: string): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      // Deleting the running download first takes its row: a cancel racing with this waits for the commit and then
      // finds nothing running (so a delete after it removes the record); one that came first leaves nothing to delete.
      const { changes } = await tx.run("DELETE FROM whisper_model_downloads WHERE name = ? AND attempt = ? AND status = 'downloading'", [model.name, attempt]);
      if (changes !== 1) return false;
      await new SqlWhisperModelStore(tx).save(model);
      return true;
    });
  }
}
