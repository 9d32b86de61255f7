import type { JobRecord, JobRunner } from '../jobs/job-runner';
import type { ServiceMetrics } from './service-metrics';

const OUTCOMES: ReadonlySet<string> = new Set(['complete', 'failed', 'cancelled']);

/**
 * Observes the jobs this process runs: the queue wait when one starts (from when it was queued, as its record
 * says, to now) and the duration when it settles. A job handed back (its worker stopping) is not an outcome:
 * it is observed again when it runs to its end, wherever that is.
 */
export function watchJobs(runner: Pick<JobRunner, 'on'>, metrics: ServiceMetrics, queuedAt: (id: string) => Promise<string | null>, now = () => Date.now()): void {
  const startedAt = new Map<string, number>();
  runner.on('started', (job: JobRecord) => {
    const started = now();
    startedAt.set(job.id, started);
    queuedAt(job.id).then(
      (queued) => {
        if (queued !== null) metrics.jobQueueWait.observe({ kind: job.kind }, Math.max(0, started - Date.parse(queued)) / 1000);
      },
      () => {}, // the database error is counted where the statement failed
    );
  });
  runner.on('settled', (job: JobRecord) => {
    const started = startedAt.get(job.id);
    startedAt.delete(job.id);
    if (started === undefined || !OUTCOMES.has(job.status)) return;
    metrics.jobDuration.observe({ kind: job.kind, outcome: job.status }, Math.max(0, now() - started) / 1000);
  });
}
