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

/**
 * The `whisper_models` table (this store's alone): the Whisper models a team installed. Only a team's nodes
 * use it; the desktop keeps its models as files in its own folder (models/whisper/).
 */
export interface WhisperModelStore {
  list(): Promise<StoredWhisperModel[]>;
  get(name: string): Promise<StoredWhisperModel | null>;
  /** Records a model (inserted, or replacing the one stored under its name). */
  save(model: StoredWhisperModel): Promise<void>;
  /** Forgets a model; returns what was stored, or null when nothing was. */
  remove(name: string): Promise<StoredWhisperModel | null>;
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
}
