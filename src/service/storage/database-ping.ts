import type { Sql } from './sql/sql';

/** Resolves when the database answers a statement (the readiness check), throws its error when it does not. */
export async function pingDatabase(sql: Sql): Promise<void> {
  await sql.get('SELECT 1 AS one');
}
