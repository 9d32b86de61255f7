import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STORAGE_OPERATIONS } from './counted-blob-store';

/** The jobs table counted by kind and status (every job the team has recorded, whichever node asks). */
export type JobCounts = () => Promise<ReadonlyArray<{ kind: string; status: string; n: number }>>;

/** A team process's last heartbeat as the queue engine's registry holds it. */
export interface WorkerBeat {
  /** `<host>-<pid>`, as the worker's folders are named. */
  worker: string;
  heartbeatAt: Date;
  live: boolean;
}

/** What is counted at scrape time, from the database. */
export interface CountSources {
  jobCounts: JobCounts;
  /** Team mode: the workers' heartbeats; absent on the desktop (its jobs run in the service's own process). */
  workerBeats?: () => Promise<readonly WorkerBeat[]>;
}

/** Workers quiet for longer than this are no longer listed (a crashed worker's row stays in the registry for days). */
export const QUIET_WORKER_LISTED_MS = 3600_000;

/** Request latencies: a read answers in milliseconds, an upload of a long recording in minutes. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Jobs last from a second (a profile) to hours (a long transcription), and wait from nothing to as long. */
const JOB_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400];
const WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600, 14400];

export const JOB_STATUSES = ['queued', 'running', 'complete', 'failed', 'cancelled'] as const;

/**
 * Every metric a Takeline process exposes, in a registry of its own (never prom-client's global one, so two
 * services in one process, as in tests, keep theirs apart). Counts the team shares (jobs by status, workers'
 * heartbeats) are read from the database at scrape time, so any node reports the same and a request pays
 * nothing for them; what happens in this process (requests, jobs it ran, storage and database errors) is
 * counted where it happens.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Histogram<'method' | 'route' | 'status'>;
  readonly jobDuration: Histogram<'kind' | 'outcome'>;
  readonly jobQueueWait: Histogram<'kind'>;
  readonly storageErrors: Counter<'operation'>;
  readonly databaseErrors: Counter;
  /** Scrape-time reads that failed (the database did not answer the count): their gauges are absent then. */
  private readonly sourceErrors: Counter<'source'>;

  /** `processMetrics`: the process's CPU, memory and event loop, read at scrape time; off in tests that list series. */
  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Histogram({
      name: 'takeline_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status: time from arrival to the last byte written.',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'takeline_job_duration_seconds',
      help: 'Jobs this process ran, by kind and outcome (complete, failed, cancelled): time from start to settling.',
      labelNames: ['kind', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.jobQueueWait = new Histogram({
      name: 'takeline_job_queue_wait_seconds',
      help: 'Jobs this process started, by kind: time from being queued to starting.',
      labelNames: ['kind'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.storageErrors = new Counter({
      name: 'takeline_storage_errors_total',
      help: 'Storage operations (folder or S3) that failed in this process, by operation.',
      labelNames: ['operation'],
      registers,
    });
    // Each operation starts at 0, so a rate over the first failure has a series to rise from.
    for (const operation of STORAGE_OPERATIONS) this.storageErrors.inc({ operation }, 0);
    this.databaseErrors = new Counter({
      name: 'takeline_database_errors_total',
      help: 'Database statements and queue-engine operations that failed in this process (unique-key conflicts excluded).',
      registers,
    });
    this.sourceErrors = new Counter({
      name: 'takeline_metrics_source_errors_total',
      help: 'Scrape-time reads of the team’s counts that failed, by source (their gauges are absent from that scrape).',
      labelNames: ['source'],
      registers,
    });
    if (options.processMetrics ?? true) processMetrics(registers);
  }

  /** Registers the counts read from the database at each scrape (once the database is open). */
  countFrom(sources: CountSources): void {
    const registers = [this.registry];
    const jobsGauge = new Gauge({
      name: 'takeline_jobs',
      help: 'Jobs in the team’s jobs table by kind and status (queued, running, complete, failed, cancelled), counted at scrape time.',
      labelNames: ['kind', 'status'],
      registers,
      collect: async () => {
        jobsGauge.reset();
        const counts = await this.read('jobs', () => sources.jobCounts());
        if (!counts) return;
        const kinds = new Set(counts.map((c) => c.kind));
        // Every status of a known kind is present, 0 included: a query for failed jobs has a series to compare from the start.
        for (const kind of kinds) for (const status of JOB_STATUSES) jobsGauge.set({ kind, status }, 0);
        for (const { kind, status, n } of counts) jobsGauge.set({ kind, status }, Number(n));
      },
    });
    if (sources.workerBeats) {
      const beats = sources.workerBeats;
      // The registry collects its metrics side by side: both gauges share one read per scrape.
      let reading: Promise<readonly WorkerBeat[] | null> | null = null;
      const workers = () =>
        (reading ??= this.read('workers', beats).finally(() => {
          reading = null;
        }));
      const liveGauge = new Gauge({
        name: 'takeline_workers_live',
        help: 'Workers whose heartbeat the queue engine heard within three of their heartbeat intervals.',
        registers,
        collect: async () => {
          const found = await workers();
          // Unread is absent, not 0: a dead database must not read as "no workers".
          if (found) liveGauge.set(found.filter((w) => w.live).length);
          else liveGauge.remove({});
        },
      });
      const heartbeatGauge = new Gauge({
        name: 'takeline_worker_last_heartbeat_timestamp_seconds',
        help: 'Each worker’s last heartbeat (Unix time), for workers running or heard within the last hour.',
        labelNames: ['worker'],
        registers,
        collect: async () => {
          heartbeatGauge.reset();
          const since = Date.now() - QUIET_WORKER_LISTED_MS;
          for (const w of (await workers()) ?? []) if (w.heartbeatAt.getTime() >= since) heartbeatGauge.set({ worker: w.worker }, w.heartbeatAt.getTime() / 1000);
        },
      });
    }
  }

  /** The text Prometheus scrapes. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private async read<T>(source: string, read: () => Promise<T>): Promise<T | null> {
    try {
      return await read();
    } catch {
      this.sourceErrors.inc({ source });
      return null;
    }
  }
}

/**
 * The process's CPU, memory and event loop, all read at scrape time. Not prom-client's default metrics: their
 * event-loop-lag monitor wakes the process every 10 ms, and on a loaded machine an API node's read took a median
 * 10.3 ms with it against 1.9 ms without (bench/team/metrics-cost.ts). The loop's utilisation since the previous
 * scrape says as much about a busy loop without a timer.
 */
function processMetrics(registers: Registry[]): void {
  const cpu = new Counter({
    name: 'takeline_process_cpu_seconds_total',
    help: 'CPU time this process used (user and system), in seconds.',
    registers,
    collect() {
      const { user, system } = process.cpuUsage();
      cpu.reset();
      cpu.inc((user + system) / 1e6);
    },
  });
  const memory = new Gauge({
    name: 'takeline_process_resident_memory_bytes',
    help: 'Resident memory of this process, in bytes.',
    registers,
    collect() {
      memory.set(process.memoryUsage.rss());
    },
  });
  const heap = new Gauge({
    name: 'takeline_nodejs_heap_used_bytes',
    help: 'JavaScript heap in use, in bytes.',
    registers,
    collect() {
      heap.set(process.memoryUsage().heapUsed);
    },
  });
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  const loop = new Gauge({
    name: 'takeline_nodejs_eventloop_utilization_ratio',
    help: 'Share of the time since the previous scrape the event loop was busy (0 to 1).',
    registers,
    collect() {
      const now = performance.eventLoopUtilization();
      loop.set(performance.eventLoopUtilization(now, previous).utilization);
      previous = now;
    },
  });
}
