import { PgBoss } from 'pg-boss';
import type { JobDispatch } from '../storage/job-store';
import { PostgresSql } from '../storage/sql/postgres-sql';
import { awaitingWorker } from './awaiting-worker';

/** One pg-boss queue for every kind: a worker's concurrency is per process, whatever the kinds it runs. */
export const QUEUE = 'takeline-jobs';
/** pg-boss's priorities: higher first. Background work (the analysis) waits behind uploads and revoices. */
const PRIORITY = { foreground: 10, background: 0 } as const;

export interface PgBossQueueOptions {
  /** A worker's missed heartbeats for this long hand its job to another worker (pg-boss's minimum is 10). */
  heartbeatSeconds?: number;
  /** How often idle workers look for work, besides being woken by NOTIFY (pg-boss's minimum is 0.5). */
  pollingSeconds?: number;
  /** How often the supervisor looks for jobs whose heartbeats stopped. */
  superviseSeconds?: number;
  log?: (line: string) => void;
  /** Hears the engine's errors (a lost connection, a failed poll): the metrics' database errors. */
  onError?: (error: Error) => void;
  /** The process's name in pg-boss's registry of instances, whose heartbeats tell which workers live. */
  role?: 'api' | 'worker';
}

/** How often each process refreshes its row in pg-boss's registry; it reads as quiet after three missed beats. */
const INSTANCE_HEARTBEAT_SECONDS = 10;

/** A worker's heartbeat in pg-boss's registry of instances. */
export interface WorkerInstance {
  /** `<host>-<pid>`, as the worker's folders are named. */
  worker: string;
  heartbeatAt: Date;
  live: boolean;
}

/**
 * Team mode's queue engine: pg-boss on the team's PostgreSQL. Takeline's job records (the `jobs` table) stay the
 * truth for status, progress and interruptions; pg-boss decides which worker runs a job, watches its heartbeats,
 * and delivers it again to another worker when one dies. A job is sent to pg-boss in the transaction that
 * records it (`dispatch`), so work is queued exactly when the data it belongs to commits.
 */
export class PgBossQueue {
  private constructor(
    private readonly boss: PgBoss,
    private readonly options: PgBossQueueOptions,
  ) {}

  /** Starts pg-boss (creating or migrating its schema, `pgboss`) and the queue. */
  static async open(url: string, options: PgBossQueueOptions = {}): Promise<PgBossQueue> {
    const boss = new PgBoss({
      connectionString: url,
      max: 4,
      useListenNotify: true,
      // The monitor pass is where jobs whose heartbeats stopped are failed (and so delivered again).
      superviseIntervalSeconds: options.superviseSeconds ?? 2,
      monitorIntervalSeconds: options.superviseSeconds ?? 2,
      instanceName: options.role === undefined ? undefined : `takeline-${options.role}`,
      instanceHeartbeatSeconds: INSTANCE_HEARTBEAT_SECONDS,
    });
    boss.on('error', (error: Error) => {
      options.onError?.(error);
      options.log?.(`queue: ${error.message}`);
    });
    await boss.start();
    try {
      await boss.createQueue(QUEUE, {
        heartbeatSeconds: options.heartbeatSeconds ?? 10,
        // Long recordings take long: heartbeats, not a deadline, tell a dead worker from a slow one.
        expireInSeconds: 24 * 3600,
        // Takeline counts interruptions itself (a job dying at the same point three times fails); pg-boss only
        // delivers again.
        retryLimit: 1000,
        retryDelay: 0,
        notify: true,
      });
    } catch (error) {
      // Two nodes starting at once: the other one made it.
      if (!/already exists/i.test((error as Error).message)) throw error;
    }
    return new PgBossQueue(boss, options);
  }

  /** The job store's hook: sends the job to pg-boss on the store's own connection or transaction. */
  readonly dispatch: JobDispatch = async (sql, job) => {
    if (!(sql instanceof PostgresSql)) throw new Error('The team queue needs the team database (PostgreSQL).');
    await this.boss.send(
      QUEUE,
      { job_id: job.id, kind: job.kind },
      { id: job.id, priority: job.background ? PRIORITY.background : PRIORITY.foreground, db: { executeSql: (text, values) => sql.native(text, values) } },
    );
  };

  /**
   * Runs delivered jobs, `concurrency` at a time in this process. `run` resolves when the job is recorded (done,
   * failed or cancelled: pg-boss completes it) and throws to have pg-boss deliver it again (a stopping worker).
   */
  async work(run: (jobId: string) => Promise<void>, concurrency = 1): Promise<void> {
    await this.boss.work<{ job_id: string }>(
      QUEUE,
      {
        batchSize: 1,
        localConcurrency: concurrency,
        pollingIntervalSeconds: this.options.pollingSeconds ?? 0.5,
        // pg-boss wakes an idle worker on NOTIFY of a new job, but after finishing one it fetches the next
        // (queued before) only on this backstop: 5 s left short jobs waiting 5 s at every hand-over (bench/team).
        notifyPollingIntervalSeconds: 1,
      },
      async ([job]) => {
        if (job) await run(job.data.job_id);
      },
    );
  }

  /**
   * Of these jobs, those pg-boss holds for a worker to take (`created`, or `retry` after its worker's heartbeats
   * stopped), rather than running one (`active`) or done with. One query for them all.
   */
  awaitingWorker(ids: readonly string[]): Promise<Set<string>> {
    return awaitingWorker(this.boss.getDb(), QUEUE, ids);
  }

  /** The team's workers as pg-boss's registry has them: running, or stopped without saying so (crashed), with their last heartbeat. */
  async workers(): Promise<WorkerInstance[]> {
    const instances = await this.boss.getInstances();
    return instances
      .filter((i) => i.name === 'takeline-worker' && i.stoppedOn === null)
      .map((i) => ({ worker: `${i.host}-${i.pid}`, heartbeatAt: new Date(i.heartbeatOn), live: i.live }));
  }

  /**
   * Stops taking jobs. Stop the runner first: its handed-back jobs then fail in pg-boss and are delivered
   * again at once, rather than after their heartbeats run out.
   */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, close: true, timeout: 10_000 });
  }
}
