import { WAITING_FOR_A_WORKER_STAGE, type JobRunner } from '../jobs/job-runner';
import type { JobStore } from '../storage/job-store';

export interface HandOverWatchDeps {
  store: JobStore;
  /** Of these job ids, those the queue engine holds for a worker to take (`PgBossQueue.awaitingWorker`). */
  awaitingWorker(ids: readonly string[]): Promise<Set<string>>;
  /** Where each kind shows a waiting stage besides its record (a transcription's recording). */
  runner: Pick<JobRunner, 'showWaiting'>;
  log(line: string): void;
}

/**
 * One look at a team's running jobs: a job recorded as running whose queue-engine job is back waiting for a
 * worker (its worker died; pg-boss noticed its heartbeats stop) gets the stage `waiting for a worker`, in its
 * record and where its kind shows it, until a worker takes it over (the runner then clears it). The write only
 * lands on the same run (attempts unchanged), so a worker that took the job in between keeps its own stage.
 * Returns the ids it marked.
 */
export async function markJobsAwaitingWorker(deps: HandOverWatchDeps): Promise<string[]> {
  const running = await deps.store.runningJobs();
  if (running.length === 0) return [];
  const awaiting = await deps.awaitingWorker(running.map((job) => job.id));
  const marked: string[] = [];
  for (const job of running.filter((j) => awaiting.has(j.id))) {
    if (!(await deps.store.setStageOfRun(job.id, job.attempts, WAITING_FOR_A_WORKER_STAGE))) continue;
    await deps.runner.showWaiting({ ...job, stage: WAITING_FOR_A_WORKER_STAGE }, WAITING_FOR_A_WORKER_STAGE);
    deps.log(`job ${job.id} (${job.kind}): its worker stopped; waiting for a worker`);
    marked.push(job.id);
  }
  return marked;
}

/** Looks every `intervalMs` (an API node's pass). Returns its stopper. */
export function watchHandOvers(deps: HandOverWatchDeps, intervalMs = 2000): () => Promise<void> {
  let pass: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    pass = markJobsAwaitingWorker(deps).catch((error: unknown) => deps.log(`jobs: could not look for jobs waiting for a worker: ${(error as Error)?.message ?? String(error)}`));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await pass;
  };
}
