import type { Db } from './database';

/** Whether work is already waiting in the job queue, so a burst of edits queues one job, not one per edit. */
export interface QueuedJobs {
  /** True when a job of `kind` for the session is queued and not yet started. */
  waiting(kind: string, sessionId: string): boolean;
}

export class SqliteQueuedJobs implements QueuedJobs {
  constructor(private readonly db: Db) {}

  waiting(kind: string, sessionId: string): boolean {
    return this.db.prepare("SELECT 1 FROM jobs WHERE session_id = ? AND kind = ? AND status = 'queued'").get(sessionId, kind) !== undefined;
  }
}
