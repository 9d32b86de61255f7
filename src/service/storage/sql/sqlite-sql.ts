import type { Statement } from 'better-sqlite3';
import type { Db } from '../database';
import { isUniqueViolation, UniqueViolation, type Sql, type SqlRunResult, type SqlValue } from './sql';

/**
 * The embedded database behind the async `Sql` interface. better-sqlite3 is synchronous, so each call
 * runs at once; statements are prepared once per SQL text (preparing costs more than the small lookups
 * every request makes). A transaction holds a lock: other callers wait for its commit rather than
 * slipping their statements into it while its work awaits.
 */
export class SqliteSql implements Sql {
  readonly dialect = 'sqlite' as const;
  private readonly prepared = new Map<string, Statement>();
  private lock: Promise<void> | null = null;

  constructor(readonly db: Db) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    while (this.lock) await this.lock;
    return this.allNow<T>(sql, params);
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    while (this.lock) await this.lock;
    return this.getNow<T>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    while (this.lock) await this.lock;
    return this.runNow(sql, params);
  }

  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    while (this.lock) await this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    try {
      return await new SqliteTransaction(this, 0).within('BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK', work);
    } finally {
      this.lock = null;
      release();
    }
  }

  /** @internal */
  allNow<T>(sql: string, params: readonly SqlValue[]): T[] {
    return translated(() => this.statement(sql).all(...params) as T[]);
  }

  /** @internal */
  getNow<T>(sql: string, params: readonly SqlValue[]): T | undefined {
    return translated(() => this.statement(sql).get(...params) as T | undefined);
  }

  /** @internal */
  runNow(sql: string, params: readonly SqlValue[]): SqlRunResult {
    return translated(() => ({ changes: this.statement(sql).run(...params).changes }));
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

function translated<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation(error);
    throw error;
  }
}
