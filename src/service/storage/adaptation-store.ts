import type { Sql } from './sql/sql';

/** How far a project speaker's voice is adapted, as the projects API shows it. */
export interface AdaptationSummary {
  recordings: number;
  seconds: number;
  /** Of `seconds`, those of lines the editor corrected or aligned a script to. */
  corrected_seconds: number;
  /** Whether the speaker's Gaussian means were also re-estimated (MAP) from their corrected speech. */
  map_means: boolean;
  updated_at: string;
}

/** One recording's Baum-Welch sums of a speaker (its recognized lines, or its corrected ones: `<session>.corrected`). */
export interface AdaptationRecording {
  id: string;
  seconds: number;
  at: string;
  /** Statistics along the editor's words (corrected lines), not the recognizer's. */
  corrected?: boolean;
  /** Blob keys of bw's files: `prefix` (ends with `/`) followed by each of `files`. */
  prefix: string;
  files: string[];
}

/** What a speaker's adaptation keeps: blob keys (never rewritten once named) and the summary. */
export interface AdaptationState {
  recordings: AdaptationRecording[];
  /** The MLLR transform's key, or null (too little speech so far). */
  transform: string | null;
  /** The MAP-adapted means' key, or null (too little corrected speech). */
  means: string | null;
  summary: AdaptationSummary | null;
}

export interface StoredAdaptation {
  speakerId: string;
  projectId: string;
  /** Rises with every estimate. */
  version: number;
  state: AdaptationState;
}

/**
 * The `speaker_adaptations` table (this store's alone): each project speaker's adaptation state, which every
 * node of a team reads. A row goes with its speaker (ON DELETE CASCADE).
 */
export interface AdaptationStore {
  get(speakerId: string): Promise<StoredAdaptation | null>;
  forProject(projectId: string): Promise<StoredAdaptation[]>;
  /** Every stored speaker's state (the start-up sweep and the move of a desktop's adaptation folder). */
  all(): Promise<StoredAdaptation[]>;
  /** Writes the speaker's state (inserted, or replacing the one stored). */
  save(adaptation: StoredAdaptation): Promise<void>;
  remove(speakerId: string): Promise<void>;
  /**
   * Runs `work` while no other caller, in this process or another node, runs work for the same speaker: two
   * recordings of one speaker adapted at once must not both start from the same state (one would be lost).
   * `work` reads and writes through the store it is given; its writes are seen by others once it returns.
   */
  exclusive<T>(speakerId: string, work: (store: AdaptationStore) => Promise<T>): Promise<T>;
}

interface Row {
  speaker_id: string;
  project_id: string;
  version: number;
  state_json: string;
}

const COLUMNS = 'speaker_id, project_id, version, state_json';

function fromRow(row: Row): StoredAdaptation {
  return { speakerId: row.speaker_id, projectId: row.project_id, version: Number(row.version), state: JSON.parse(row.state_json) as AdaptationState };
}

export class SqlAdaptationStore implements AdaptationStore {
  /** The desktop's (SQLite's) lock: one process, so a chain of work per speaker is enough. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly sql: Sql) {}

  async get(speakerId: string): Promise<StoredAdaptation | null> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM speaker_adaptations WHERE speaker_id = ?`, [speakerId]);
    return row ? fromRow(row) : null;
  }

  async forProject(projectId: string): Promise<StoredAdaptation[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM speaker_adaptations WHERE project_id = ? ORDER BY speaker_id`, [projectId])).map(fromRow);
  }

  async all(): Promise<StoredAdaptation[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM speaker_adaptations ORDER BY project_id, speaker_id`)).map(fromRow);
  }

  async save(adaptation: StoredAdaptation): Promise<void> {
    await this.sql.run(
      `INSERT INTO speaker_adaptations (${COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (speaker_id) DO UPDATE SET project_id = excluded.project_id, version = excluded.version, state_json = excluded.state_json, updated_at = excluded.updated_at`,
      [adaptation.speakerId, adaptation.projectId, adaptation.version, JSON.stringify(adaptation.state), new Date().toISOString()],
    );
  }

  async remove(speakerId: string): Promise<void> {
    await this.sql.run('DELETE FROM speaker_adaptations WHERE speaker_id = ?', [speakerId]);
  }

  exclusive<T>(speakerId: string, work: (store: AdaptationStore) => Promise<T>): Promise<T> {
    if (this.sql.dialect === 'postgres') {
      // A transaction-scoped advisory lock on the speaker: held by this connection until the work commits or
      // rolls back, and let go by the server if the worker dies (its connection closes).
      return this.sql.transaction(async (tx) => {
        await tx.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`speaker-adaptation:${speakerId}`]);
        return work(new SqlAdaptationStore(tx));
      });
    }
    // Not a database transaction: SQLite's would hold the whole database for the minutes an estimate takes.
    const run = (this.chains.get(speakerId) ?? Promise.resolve()).then(() => work(this));
    const tail = run.catch(() => undefined);
    this.chains.set(speakerId, tail);
    void tail.then(() => {
      if (this.chains.get(speakerId) === tail) this.chains.delete(speakerId);
    });
    return run;
  }
}
