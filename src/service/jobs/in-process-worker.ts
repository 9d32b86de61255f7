import { MAX_ATTEMPTS } from './job-record';
import type { JobExecution, WorkerAdapter } from './worker-adapter';

/**
 * The desktop's worker: it runs the jobs of its own SQLite file in its own process, taking a queued job as soon
 * as it is queued (or one ends), `concurrency` at a time. At its start, whatever was running when the process
 * died is queued again, unless it has already taken the process down several times (then it would crash-loop).
 */
export class InProcessWorker implements WorkerAdapter {
  private execution: JobExecution | null = null;
  private started = false;
  /** One pump at a time: starting a job takes reads and writes, and two pumps would start one job twice. */
  private pumping: Promise<void> = Promise.resolve();
  /** Jobs started at once for a request that waits on them: they take no slot from the queue's jobs. */
  private readonly taken = new Set<string>();

  constructor(private readonly concurrency = 1) {}

  attach(execution: JobExecution): void {
    this.execution = execution;
  }

  async start(): Promise<void> {
    const { store, countInterruption, failCrashLoop } = this.execution!;
    // A job that got further than before the previous interruption is making progress (checkpoints keep
    // it): its count of interruptions starts again. Only one dying at the same point again and again is
    // crash-looping. (`attempts` still counts every run: revoice marks what each run rendered with it.)
    for (const { id } of await store.interrupted()) await countInterruption(id);
    for (const { id, n } of await store.crashLooping(MAX_ATTEMPTS)) await failCrashLoop(id, n);
    await store.requeueRunning();
    this.started = true;
    this.wake();
    await this.pumping;
  }

  wake(): void {
    const execution = this.execution;
    if (!execution) return;
    this.pumping = this.pumping.then(() =>
      this.launchQueued(execution).catch((error: unknown) => {
        // The database refused a write (a full disk): the queue is tried again on the next enqueue or settle.
        execution.log(`jobs: could not start the next job: ${(error as Error)?.message ?? String(error)}`);
      }),
    );
  }

  take(id: string): void {
    const execution = this.execution;
    if (!execution) return;
    this.pumping = this.pumping.then(() =>
      this.launchNow(execution, id).catch((error: unknown) => {
        execution.log(`jobs: could not start job ${id}: ${(error as Error)?.message ?? String(error)}`);
      }),
    );
  }

  /** Starts one queued job at once, whatever else runs (taken by the pump already: nothing to do). */
  private async launchNow(execution: JobExecution, id: string): Promise<void> {
    if (!this.started || execution.stopping()) return;
    const queued = await execution.store.get(id);
    if (!queued || queued.status !== 'queued' || !execution.handles(queued.kind)) return;
    if (!(await execution.store.claim(id))) return;
    const job = await execution.store.get(id);
    if (!job) return;
    this.taken.add(id);
    void execution.run(job).finally(() => this.taken.delete(id));
  }

  private async launchQueued(execution: JobExecution): Promise<void> {
    const { all, background, quick } = execution.kinds();
    while (this.started && !execution.stopping()) {
      let eligible = all;
      if (execution.runningCount() - this.taken.size >= this.concurrency) {
        // Full: a quick job may still start in a slot of its own, one at a time.
        if (quick.length === 0 || execution.quickRunning()) return;
        eligible = quick;
      }
      const id = await execution.store.nextQueued(eligible, background);
      if (!id) return;
      if (!(await execution.store.claim(id))) continue;
      const job = await execution.store.get(id);
      if (job) void execution.run(job);
    }
  }

  async stop(): Promise<void> {}

  idle(): Promise<void> {
    return this.pumping;
  }
}
