import crypto from 'node:crypto';
import pg, { type Pool, type PoolClient, type PoolConfig } from 'pg';
import { numberedPlaceholders } from './placeholders';
import { isUniqueViolation, UniqueViolation, type Sql, type SqlRunResult, type SqlValue } from './sql';
import { BadRequestError } from '../../errors';

type Queryable = Pool | PoolClient;

// BIGINT (20) and COUNT(*) come back as strings by default; Takeline's integers (sizes, counters,
// milliseconds) fit a double, as they do in SQLite. NUMERIC (1700) likewise.
const NUMBER_TYPES = new Set([20, 1700]);

/** Pool options that read BIGINT and NUMERIC as numbers for this pool only (not pg's global parsers). */
export function numericTypes(): NonNullable<PoolConfig['types']> {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (NUMBER_TYPES.has(oid) && format !== 'binary') return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format as 'text');
    }) as NonNullable<PoolConfig['types']>['getTypeParser'],
  };
}

/**
 * Opens a pool on `url` whose integers read as numbers. An idle connection the server ends (a restart, an
 * administrator's pg_terminate_backend) is an `error` event on the pool, which would end the process unheard;
 * the pool drops that connection and opens another for the next statement, so it is only reported (`onIdleError`).
 */
export function openPostgresPool(url: string, max = 10, onIdleError?: (error: Error) => void): Pool {
  const pool = new pg.Pool({ connectionString: url, max, types: numericTypes() });
  pool.on('error', (error) => onIdleError?.(error));
  return pool;
}

/**
 * Statements are sent as named prepared statements, so each connection parses and plans a statement once rather
 * than on every call: measured on a throwaway server, a primary-key read cost the backend 28–36 µs of CPU instead of
 * 71–76 and this process 40–46 µs instead of 58–73 (a team API node's reads are such statements, several per request).
 * The names are the texts' digests. Statements whose text is made at run time (a list of placeholders as long as
 * the list) could name without end, and each name is kept by every connection: past this many texts, the rest are
 * sent unnamed as before.
 */
const MAX_NAMED_STATEMENTS = 2000;
const statements = new Map<string, { text: string; name: string | undefined }>();
let named = 0;

/**
 * A statement in PostgreSQL's form, made once per text for the whole process (every pool and transaction): `?`
 * placeholders numbered, and the prepared statement's name, or undefined once the cap is reached for new texts.
 */
export function statementFor(sql: string): { text: string; name: string | undefined } {
  let statement = statements.get(sql);
  if (statement === undefined) {
    const text = numberedPlaceholders(sql);
    // Only texts with placeholders are ever sent named (see `query`), so only they count towards the cap.
    const name = text !== sql && named < MAX_NAMED_STATEMENTS ? `tl_${crypto.createHash('sha1').update(text).digest('hex')}` : undefined;
    if (name !== undefined) named++;
    statement = { text, name };
    statements.set(sql, statement);
  }
  return statement;
}

/** A team server's database behind the `Sql` interface: a pool, with a dedicated client per transaction. */
export class PostgresSql implements Sql {
  readonly dialect = 'postgres' as const;

  constructor(
    private readonly client: Queryable,
    private readonly depth = -1,
    /** Hears every statement the database refused, but a unique-key conflict (the metrics' database errors). */
    private readonly onError?: (error: unknown) => void,
  ) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    if (this.depth >= 0) {
      const name = `sp${this.depth + 1}`;
      return within(this.client, new PostgresSql(this.client, this.depth + 1, this.onError), `SAVEPOINT ${name}`, `RELEASE SAVEPOINT ${name}`, `ROLLBACK TO SAVEPOINT ${name}`, work);
    }
    const client = await (this.client as Pool).connect();
    try {
      return await within(client, new PostgresSql(client, 0, this.onError), 'BEGIN', 'COMMIT', 'ROLLBACK', work);
    } finally {
      client.release();
    }
  }

  /**
   * A statement in PostgreSQL's own form (`$1` placeholders, untouched), on this pool or transaction: for a
   * library that brings its SQL, like the team queue's pg-boss enqueuing inside a store's transaction.
   */
  async native(text: string, values: readonly unknown[] = []): Promise<{ rows: unknown[] }> {
    return { rows: (await this.client.query(text, values as unknown[])).rows as unknown[] };
  }

  private async query(sql: string, params: readonly SqlValue[]) {
    const { text, name } = statementFor(sql);
    try {
      // Without parameters pg sends the simple protocol, which also takes several statements in one text (a
      // migration's); a named statement is one statement, so only parameterised texts are named.
      return await this.client.query({ name: params.length > 0 ? name : undefined, text, values: params as unknown[] });
    } catch (error) {
      if (isUniqueViolation(error)) throw new UniqueViolation(error);
      // PostgreSQL's text cannot hold U+0000 (SQLite's can): the client sent it, so it is theirs to hear of.
      if ((error as { code?: string }).code === '22021' && params.some((p) => typeof p === 'string' && p.includes('\0'))) {
        throw new BadRequestError('Text with a NUL character (U+0000) cannot be stored or looked up.', { code: 'nul_character' });
      }
      this.onError?.(error);
      throw error;
    }
  }
}

async function within<T>(client: Queryable, tx: Sql, begin: string, commit: string, rollback: string, work: (tx: Sql) => Promise<T>): Promise<T> {
  await client.query(begin);
  try {
    const result = await work(tx);
    await client.query(commit);
    return result;
  } catch (error) {
    await client.query(rollback);
    throw error;
  }
}
