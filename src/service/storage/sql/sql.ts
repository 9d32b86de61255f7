/**
 * The one way stores reach their database, whichever it is: the embedded SQLite file (desktop) or
 * PostgreSQL (team server). Stores write portable SQL with `?` placeholders and snake_case column names
 * (PostgreSQL folds unquoted names to lower case); where the dialects truly differ a store asks `dialect`.
 */
export type SqlValue = string | number | bigint | Buffer | null;

export type SqlDialect = 'sqlite' | 'postgres';

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export interface Sql {
  readonly dialect: SqlDialect;
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Statements
   * inside must go through the `tx` it is given (nested calls become savepoints); anything else waits
   * for the commit, so a transaction never sees another caller's half-done work.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
}

/** A unique or primary key refused a row: stores turn it into their own conflict. */
export class UniqueViolation extends Error {
  constructor(cause: unknown) {
    super((cause as Error).message);
    this.name = 'UniqueViolation';
  }
}

/** Whether an error from either driver is a unique-key violation. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
