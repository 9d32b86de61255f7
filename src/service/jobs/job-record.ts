export type JobStatus = 'queued' | 'running' | 'complete' | 'failed' | 'cancelled';

export interface JobRecord {
  id: string;
  kind: string;
  session_id: string;
  status: JobStatus;
  payload: Record<string, unknown>;
  progress: number;
  stage: string | null;
  error: string | null;
  attempts: number;
  /** What the job found (its handler's return), or has found so far (`publish`); null when it says nothing. */
  result: Record<string, unknown> | null;
}

export const SETTLED: ReadonlySet<JobStatus> = new Set(['complete', 'failed', 'cancelled']);

/** A job interrupted this often at the same point is failed rather than run again (it would crash-loop). */
export const MAX_ATTEMPTS = 3;
