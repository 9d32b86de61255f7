import type { JobRunner } from '../jobs/job-runner';
import type { BlobStore } from '../storage/blobs/blob-store';
import type { JobStore } from '../storage/job-store';
import { pingDatabase } from '../storage/database-ping';
import type { Sql } from '../storage/sql/sql';
import { watchJobs } from './job-metrics';
import type { MetricsConfig } from './metrics-config';
import type { OperationsDeps } from './operations-routes';
import { readiness } from './readiness';
import type { ServiceMetrics, WorkerBeat } from './service-metrics';

/** The key the storage check looks up: its absence is an answer, which is all readiness asks of the storage. */
export const READINESS_PROBE_KEY = 'readyz-probe';

/**
 * Wires what `/metrics` and `/readyz` read once the database and the storage are open: the counts read at
 * scrape time, the jobs this process runs, and the two readiness checks (whose changes the log names).
 */
export function setUpOperations(parts: {
  metrics: ServiceMetrics;
  config: MetricsConfig;
  sql: Sql;
  jobStore: JobStore;
  runner: Pick<JobRunner, 'on'>;
  blobs: BlobStore;
  workers?: () => Promise<readonly WorkerBeat[]>;
  log: (line: string) => void;
}): OperationsDeps {
  const { metrics, jobStore, log } = parts;
  metrics.countFrom({ jobCounts: () => jobStore.counts(), workerBeats: parts.workers });
  watchJobs(parts.runner, metrics, (id) => jobStore.queuedAt(id));
  const ready = readiness(
    { database: () => pingDatabase(parts.sql), storage: () => parts.blobs.stat(READINESS_PROBE_KEY) },
    {
      onChange: (name, result, error) =>
        log(
          result.status === 'ok'
            ? `readiness: the ${name} answers again`
            : `readiness: the ${name === 'storage' ? `storage (${parts.blobs.description})` : name} does not answer: ${(error as Error)?.message ?? result.error}`,
        ),
    },
  );
  return { metrics, readiness: ready, metricsToken: parts.config.token };
}
