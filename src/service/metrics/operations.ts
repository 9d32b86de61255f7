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

/** The object the storage check reads: written once (by whichever node starts first), then expected to be there. */
export const READINESS_PROBE_KEY = 'takeline-storage-probe';
const PROBE_TEXT = 'Takeline reads this object to tell whether the storage answers (GET /readyz). Leave it here.\n';

/** Raised when the probe object is gone: a folder storage's volume unmounted or emptied, another bucket. */
class ProbeMissing extends Error {
  readonly code = 'PROBE_OBJECT_MISSING';
}

/**
 * The storage answers when it holds the probe object. A missing object is an answer to a lookup, so the lookup
 * alone would call an unmounted volume or an empty bucket ready; once this process has seen the object stored,
 * its absence is a failure. Until then (the storage did not answer at start) it is written when the check runs.
 */
function storageCheck(blobs: BlobStore): () => Promise<void> {
  let stored = false;
  return async () => {
    if ((await blobs.stat(READINESS_PROBE_KEY)) !== null) {
      stored = true;
      return;
    }
    if (stored) throw new ProbeMissing(`the probe object ${READINESS_PROBE_KEY} is gone`);
    await blobs.putIfAbsent(READINESS_PROBE_KEY, PROBE_TEXT);
    stored = true;
  };
}

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
    { database: () => pingDatabase(parts.sql), storage: storageCheck(parts.blobs) },
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
