import type { Sql } from './sql/sql';
import type { RecognizedWord } from '../speech/types';
import { sqlOf, type TransactionScope } from './transaction-scope';

/** A stretch of a script alignment: script words [from, to) and the audio they were aligned to, in seconds. */
export interface StretchSpan {
  from: number;
  to: number;
  start: number;
  end: number;
}

/** A stretch the aligner has done: its words, or null when the aligner could not decode it. */
export interface KeptStretch extends StretchSpan {
  words: RecognizedWord[] | null;
}

/**
 * The checkpoints of running script alignments (`script_alignment_checkpoints`): each stretch the aligner has
 * done, per session and context (a digest of what the stretches were computed from: a different request must not
 * reuse them). Written as the alignment goes, removed when it finishes or fails for good, or the session is deleted.
 */
export interface ScriptAlignCheckpointStore {
  /** This store writing in a transaction in progress (a job kind's settle writer's). */
  within(scope: TransactionScope): ScriptAlignCheckpointStore;
  /** The stretches kept for the session under this context, in script order (times kept to the millisecond). */
  kept(sessionId: string, context: string): Promise<KeptStretch[]>;
  /** Keeps a stretch (replacing one kept before with the same first word). */
  save(sessionId: string, context: string, stretch: KeptStretch): Promise<void>;
  /** Removes the session's stretches kept under any other context (an earlier, different alignment's). */
  discardOthers(sessionId: string, context: string): Promise<void>;
  discard(sessionId: string): Promise<void>;
  /** Stretches kept for the session, whatever their context: the job's kept work. */
  count(sessionId: string): Promise<number>;
}

interface Row {
  word_from: number;
  word_to: number;
  start_ms: number;
  end_ms: number;
  words_json: string;
}

/** One implementation for both databases, in portable SQL over `Sql`. */
export class SqlScriptAlignCheckpointStore implements ScriptAlignCheckpointStore {
  constructor(private readonly sql: Sql) {}

  within(scope: TransactionScope): ScriptAlignCheckpointStore {
    return new SqlScriptAlignCheckpointStore(sqlOf(scope));
  }

  async kept(sessionId: string, context: string): Promise<KeptStretch[]> {
    const rows = await this.sql.all<Row>(
      'SELECT word_from, word_to, start_ms, end_ms, words_json FROM script_alignment_checkpoints WHERE session_id = ? AND context = ? ORDER BY word_from',
      [sessionId, context],
    );
    return rows.map((r) => ({
      from: Number(r.word_from),
      to: Number(r.word_to),
      start: Number(r.start_ms) / 1000,
      end: Number(r.end_ms) / 1000,
      words: JSON.parse(r.words_json) as RecognizedWord[] | null,
    }));
  }

  async save(sessionId: string, context: string, stretch: KeptStretch): Promise<void> {
    await this.sql.run(
      `INSERT INTO script_alignment_checkpoints (session_id, context, word_from, word_to, start_ms, end_ms, words_json) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, context, word_from) DO UPDATE SET word_to = excluded.word_to, start_ms = excluded.start_ms, end_ms = excluded.end_ms, words_json = excluded.words_json`,
      [sessionId, context, stretch.from, stretch.to, Math.round(stretch.start * 1000), Math.round(stretch.end * 1000), JSON.stringify(stretch.words)],
    );
  }

  async discardOthers(sessionId: string, context: string): Promise<void> {
    await this.sql.run('DELETE FROM script_alignment_checkpoints WHERE session_id = ? AND context <> ?', [sessionId, context]);
  }

  async discard(sessionId: string): Promise<void> {
    await this.sql.run('DELETE FROM script_alignment_checkpoints WHERE session_id = ?', [sessionId]);
  }

  async count(sessionId: string): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT count(*) AS n FROM script_alignment_checkpoints WHERE session_id = ?', [sessionId]))?.n ?? 0);
  }
}
