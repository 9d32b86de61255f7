import type { Statement } from 'better-sqlite3';
import type { Db } from './database';

/**
 * Prepared statements by SQL text, compiled once per store: preparing a statement costs more than running
 * the small lookups that every request makes (the key check, a session's change counter, the lists), so
 * the read routes reuse them. Holds only the fixed SQL strings of its store's code.
 */
export class Statements {
  private readonly prepared = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}
