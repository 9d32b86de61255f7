import type { Migration } from '../migrations';

/**
 * A migration's SQL for PostgreSQL. SQLite's INTEGER is 64-bit and its REAL a double, so they become BIGINT and
 * DOUBLE PRECISION (PostgreSQL's INTEGER and REAL are 32-bit); BLOB becomes BYTEA. Everything else in the
 * migrations (TEXT, CHECK, REFERENCES … ON DELETE CASCADE, quoted "end", indexes with DESC, ALTER TABLE ADD
 * COLUMN) is the same in both; where it is not, the migration carries its own `postgres` text.
 */
export function postgresSql(migration: Migration): string {
  if (migration.postgres !== undefined) return migration.postgres;
  return migration.sql
    .replace(/\bINTEGER\b/g, 'BIGINT')
    .replace(/\bREAL\b/g, 'DOUBLE PRECISION')
    .replace(/\bBLOB\b/g, 'BYTEA');
}
