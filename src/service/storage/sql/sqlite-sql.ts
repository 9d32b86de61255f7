import type { Statement } from 'better-sqlite3';
import type { Db } from '../database';
import { isUniqueViolation, UniqueViolation, type Sql, type SqlRunResult, type SqlValue } from './sql';

/** A wait for a commit that long is reported: far longer than a transaction's work should take. */
const STUCK_WAIT_MS = 120_000;

/**
 * The embedded database behind the async `Sql` interface. better-sqlite3 is synchronous, so each call
 * runs at once; statements are prepared once per SQL text (preparing costs more than the small lookups
 * every request makes). A transaction holds a lock: other callers wait for its commit rather than
 * slipping their statements into it while its work awaits.
 *
 * So a statement sent through this root handle from inside a transaction's own work (rather than through
 * the `tx` it was given) waits for a commit that waits for it: it never runs. That cannot be told apart from
 * a fair wait when it is made (work a transaction starts without awaiting it waits fairly), so a wait that
 * lasts `stuckWaitMs` is reported with the statement and where the transaction was opened.
 */
export class SqliteSql implements Sql {
  readonly dialect = 'sqlite' as const;
  private readonly prepared = new Map<string, Statement>();
  private lock: Promise<void> | null = null;
  /** Where the open transaction was begun (its stack), for the stuck-wait report. */
  private openedAt = '';
  private readonly stuckWaitMs: number;
  private readonly warn: (message: string) => void;
  /** Hears every statement the database refused, but a unique-key conflict (the metrics' database errors). */
  private readonly onError: ((error: unknown) => void) | undefined;

  constructor(
    readonly db: Db,
    options: { stuckWaitMs?: number; warn?: (message: string) => void; onError?: (error: unknown) => void } = {},
  ) {
    this.onError = options.onError;
    this.stuckWaitMs = options.stuckWaitMs ?? STUCK_WAIT_MS;
    this.warn = options.warn ?? ((message) => console.error(message));
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    while (this.lock) await this.waitForCommit(sql);
    return this.allNow<T>(sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    while (this.lock) await this.waitForCommit(sql);
    return this.getNow<T>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    while (this.lock) await this.waitForCommit(sql);
    return this.runNow(sql, params);
  }

  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    while (this.lock) await this.waitForCommit('BEGIN IMMEDIATE');
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    this.openedAt = new Error('transaction opened').stack ?? '';
    try {
      return await new SqliteTransaction(this, 0).within('BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK', work);
    } finally {
      this.lock = null;
      release();
    }
  }

  /**
   * Waits for the open transaction's end, once. The caller loops and takes the lock in the same turn as its
   * last check: had this looped, another waiter resumed meanwhile could take it first (two transactions at once).
   */
  private async waitForCommit(sql: string): Promise<void> {
    const lock = this.lock;
    const stuck = setTimeout(() => {
      this.warn(
        `A database statement has waited ${this.stuckWaitMs / 1000} s for a transaction to commit. If it was sent through the root handle ` +
          `from inside that transaction's work (not through its tx), it never runs. Statement: ${sql.replace(/\s+/g, ' ').slice(0, 200)}\n${this.openedAt}`,
      );
    }, this.stuckWaitMs);
    stuck.unref();
    try {
      await lock;
    } finally {
      clearTimeout(stuck);
    }
  }

  /** @internal */
  allNow<T>(sql: string, params: readonly SqlValue[]): T[] {
    return translated(() => this.statement(sql).all(...params) as T[], this.onError);
  }

  /** @internal */
  getNow<T>(sql: string, params: readonly SqlValue[]): T | undefined {
    return translated(() => this.statement(sql).get(...params) as T | undefined, this.onError);
  }

  /** @internal */
  runNow(sql: string, params: readonly SqlValue[]): SqlRunResult {
    return translated(() => ({ changes: this.statement(sql).run(...params).changes }), this.onError);
  }

  private statement(sql: string): Statement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}

/** The handle a transaction's work runs its statements through; a nested transaction is a savepoint. */
class SqliteTransaction implements Sql {
  readonly dialect = 'sqlite' as const;

  constructor(
    private readonly owner: SqliteSql,
    private readonly depth: number,
  ) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.owner.allNow<T>(sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.owner.getNow<T>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    return this.owner.runNow(sql, params);
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const name = `sp${this.depth + 1}`;
    return new SqliteTransaction(this.owner, this.depth + 1).within(`SAVEPOINT ${name}`, `RELEASE ${name}`, `ROLLBACK TO ${name}; RELEASE ${name}`, work);
  }

  async within<T>(begin: string, commit: string, rollback: string, work: (tx: Sql) => Promise<T>): Promise<T> {
    const db = this.owner.db;
    db.exec(begin);
    try {
      const result = await work(this);
      db.exec(commit);
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec(rollback);
      throw error;
    }
  }
}

function translated<T>(run: () => T, onError: ((error: unknown) => void) | undefined): T {
  try {
    return run();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation(error);
    onError?.(error);
    throw error;
  }
}
