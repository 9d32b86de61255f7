import type { Sql } from './sql/sql';

declare const bound: unique symbol;

/**
 * A transaction in progress, handed to code outside `storage/` (a job kind's settle writer) so that the stores it
 * names write in that transaction (`within(scope)`). Opaque there: only stores reach its connection.
 */
export interface TransactionScope {
  readonly [bound]: true;
}

export function scopeOf(tx: Sql): TransactionScope {
  return tx as unknown as TransactionScope;
}

export function sqlOf(scope: TransactionScope): Sql {
  return scope as unknown as Sql;
}
