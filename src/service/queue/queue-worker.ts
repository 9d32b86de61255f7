import { MAX_ATTEMPTS, SETTLED } from '../jobs/job-record';
import type { JobExecution, WorkerAdapter } from '../jobs/worker-adapter';

/** A delivered job the worker did not finish because it is stopping: the queue engine hands it to another. */
export class JobHandedBack extends Error {}

/**
 * A team's worker: it runs the jobs the queue engine (pg-boss) delivers (`runDelivered`), and stops those of its
 * jobs whose records say cancelled (an API node cancelled them) or that are gone (their recording was deleted).
 * It never re-queues jobs at its start, since other workers own those still running.
 */
export class QueueWorker implements WorkerAdapter {
  private execution: JobExecution | null = null;
  private watcher: NodeJS.Timeout | null = null;
  private readonly running = new Set<string>();

  /** `pollMs`: how often it looks for cancellations of its jobs (default 1000; tests make it quick). */
  constructor(private readonly pollMs = 1000) {}

  attach(execution: JobExecution): void {
    this.execution = execution;
  }

  async start(): Promise<void> {
    const execution = this.execution!;
    const look = async () => {
      const ids = [...this.running];
      if (ids.length === 0) return;
      const statuses = await execution.store.statuses(ids);
      const cancelled = ids.filter((id) => {
        const status = statuses.get(id);
        return status === undefined || status === 'cancelled';
      });
      execution.abort(cancelled, 'cancelled');
    };
    this.watcher = setInterval(() => {
      look().catch((error: unknown) => execution.log(`jobs: could not read cancellations: ${(error as Error)?.message ?? String(error)}`));
    }, this.pollMs);
    this.watcher.unref();
  }

  /** pg-boss delivers; nothing to wake. */
  wake(): void {}

  /** pg-boss decides which worker takes a job, and when. */
  take(): void {}

  /**
   * Runs a job the queue engine delivered, and resolves once it is recorded. A job found `running` was left by a
   * worker that died (the engine delivers it again when that one's heartbeats stop): it counts as an
   * interruption, as at a desktop's restart. Throws `JobHandedBack` when this worker stopped it to stop itself,
   * so the engine delivers it again.
   */
  async runDelivered(id: string): Promise<void> {
    const execution = this.execution!;
    const { store } = execution;
    if (execution.stopping()) throw new JobHandedBack('worker stopping');
    const found = await store.get(id);
    if (!found || SETTLED.has(found.status)) return; // cancelled, deleted, or settled before a crash
    if (found.status === 'running') {
      await execution.countInterruption(id);
      const looping = (await store.crashLooping(MAX_ATTEMPTS)).find((j) => j.id === id);
      if (looping) return execution.failCrashLoop(id, looping.n);
      await store.requeue(id);
    }
    if (!(await store.claim(id))) return;
    const job = await store.get(id);
    if (!job) return;
    // Which worker runs what: the first thing to look for in a team's logs.
    execution.log(`job ${id} (${job.kind}) started, attempt ${job.attempts}`);
    this.running.add(id);
    try {
      await execution.run(job);
    } finally {
      this.running.delete(id);
    }
    if (job.status === 'queued') throw new JobHandedBack('worker stopping');
  }

  async stop(): Promise<void> {
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = null;
  }

  async idle(): Promise<void> {}
}
