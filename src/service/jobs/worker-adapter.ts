import type { JobStore } from '../storage/job-store';
import type { JobRecord } from './job-record';

/**
 * What the runner hands the worker adapter of its process: the job records, and starting a job here. The
 * adapter decides when a job starts (the desktop's as soon as it is queued, a team worker's when pg-boss
 * delivers it); running it, its progress and its outcome are the runner's, the same for both.
 */
export interface JobExecution {
  readonly store: JobStore;
  /** Whether this process has a handler for the kind. */
  handles(kind: string): boolean;
  /** Every kind with a handler in this process, those that are background work, and the quick ones (`JobKindOptions.quick`). */
  kinds(): { all: string[]; background: string[]; quick: string[] };
  /** How many jobs run in this process now. */
  runningCount(): number;
  /** Whether a quick job (`JobKindOptions.quick`) runs in this process now. */
  quickRunning(): boolean;
  /** Starts a claimed job here; resolves when its outcome is recorded. */
  run(job: JobRecord): Promise<void>;
  /** Counts a job found `running` after its process died as an interruption (its kept work decides whether it got further). */
  countInterruption(id: string): Promise<void>;
  /** Fails a job interrupted too often at the same point. */
  failCrashLoop(id: string, n: number): Promise<void>;
  /** Stops these jobs if they run here (a cancellation the adapter found in their records). */
  abort(ids: readonly string[], reason: string): void;
  stopping(): boolean;
  log(line: string): void;
}

/**
 * How jobs reach a process that runs them: the desktop's in-process worker (`InProcessWorker`, the jobs table
 * of its SQLite file) or a team's worker (`QueueWorker`, what pg-boss delivers). A team's API node has none: it
 * queues and follows, and its workers run the jobs.
 */
export interface WorkerAdapter {
  attach(execution: JobExecution): void;
  start(): Promise<void>;
  /** A job was queued in this process, or one ended here: the adapter may start the next. */
  wake(): void;
  /**
   * Someone waits for this queued job (a request follows it): an adapter that runs this process's own queue
   * starts it now, beside whatever runs, as the request would have done the work itself; one whose jobs a queue
   * engine delivers leaves it to the engine.
   */
  take(id: string): void;
  /** Stops taking jobs (the runner then stops those running, which stay queued). */
  stop(): Promise<void>;
  /** Resolves when the adapter has nothing in flight (after `stop`). */
  idle(): Promise<void>;
}
