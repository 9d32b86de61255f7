import type { JobQueue, JobRecord } from './job-runner';

/** How often a waiter reads the record of a job another process runs (what it publishes reaches the client this late at most). */
const POLL_MS = 250;

const SETTLED = new Set(['complete', 'failed', 'cancelled']);

/**
 * Follows the record of a job another process runs (a team's worker) until it settles: resolves with the settled
 * record, or null when the record is gone (its recording was deleted). `onRecord` sees each reading (what the job
 * has published so far). Throws the signal's reason once it aborts; cancelling the job is the caller's to do.
 */
export async function followJob(jobs: Pick<JobQueue, 'get'>, jobId: string, signal: AbortSignal, onRecord?: (job: JobRecord) => void): Promise<JobRecord | null> {
  for (;;) {
    signal.throwIfAborted();
    const job = await jobs.get(jobId);
    if (!job) return null;
    onRecord?.(job);
    if (SETTLED.has(job.status)) return job;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, POLL_MS);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}
