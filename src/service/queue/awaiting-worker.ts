import type { Db } from 'pg-boss';
import { Uuid } from '../../shared/schemas/common';

/** pg-boss's schema: Takeline keeps its default. */
const SCHEMA = 'pgboss';

/**
 * Of these jobs of `queue`, those pg-boss holds for a worker to take: `created`, or `retry` after its worker's
 * heartbeats stopped (its supervisor failed the job), rather than `active` under a live worker or done with. One
 * statement for the whole list: pg-boss's `findJobs` takes one id, and an API node asks about every running job
 * on each pass. pg-boss's ids are UUIDs, so anything else is left out (and not sent to the database).
 */
export async function awaitingWorker(db: Pick<Db, 'executeSql'>, queue: string, ids: readonly string[]): Promise<Set<string>> {
  const uuids = ids.filter((id) => Uuid.safeParse(id).success);
  if (uuids.length === 0) return new Set();
  const { rows } = await db.executeSql(
    `SELECT id FROM ${SCHEMA}.job WHERE name = $1 AND id = ANY($2::uuid[]) AND state IN ('created', 'retry')`,
    [queue, uuids],
  );
  return new Set(rows.map((row: { id: string }) => row.id));
}
