import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ServiceMetrics, QUIET_WORKER_LISTED_MS } from './service-metrics';
import { watchJobs } from './job-metrics';
import type { JobRecord } from '../jobs/job-runner';

/** `name{labels} value` lines of the scrape, comments and buckets left out. */
async function lines(metrics: ServiceMetrics, prefix: string): Promise<string[]> {
  return (await metrics.text()).split('\n').filter((l) => l.startsWith(prefix) && !l.includes('_bucket'));
}

const job = (id: string, kind: string, status: JobRecord['status']): JobRecord => ({ id, kind, session_id: 's', status, payload: {}, progress: 0, stage: null, error: null, attempts: 1, result: null });

describe('ServiceMetrics', () => {
  it('defines each metric with its type, name and labels, in a registry of its own', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    metrics.countFrom({ jobCounts: async () => [], workerBeats: async () => [] });
    const types = (await metrics.text())
      .split('\n')
      .filter((l) => l.startsWith('# TYPE'))
      .map((l) => l.slice('# TYPE '.length));
    expect(types.sort()).toEqual(
      [
        'takeline_database_errors_total counter',
        'takeline_http_request_duration_seconds histogram',
        'takeline_job_duration_seconds histogram',
        'takeline_job_queue_wait_seconds histogram',
        'takeline_jobs gauge',
        'takeline_metrics_source_errors_total counter',
        'takeline_storage_errors_total counter',
        'takeline_worker_last_heartbeat_timestamp_seconds gauge',
        'takeline_workers_live gauge',
      ].sort(),
    );
    // Every storage operation has its series from the start, at 0.
    expect(await lines(metrics, 'takeline_storage_errors_total{operation="putFile"}')).toEqual(['takeline_storage_errors_total{operation="putFile"} 0']);
    expect((await lines(metrics, 'takeline_storage_errors_total{')).length).toBe(12);
    // Two services in one process keep their own counts.
    const other = new ServiceMetrics({ processMetrics: false });
    metrics.databaseErrors.inc();
    expect(await lines(other, 'takeline_database_errors_total')).toEqual(['takeline_database_errors_total 0']);
    expect(await lines(metrics, 'takeline_database_errors_total')).toEqual(['takeline_database_errors_total 1']);
  });

  it('adds the process’s CPU, memory and event loop, read at scrape time, unless asked not to', async () => {
    const metrics = new ServiceMetrics();
    const cpu = (text: string) => Number(/^takeline_process_cpu_seconds_total (\S+)$/m.exec(text)![1]);
    const first = await metrics.text();
    for (const until = Date.now() + 30; Date.now() < until; );
    const second = await metrics.text();
    expect(cpu(second)).toBeGreaterThan(cpu(first));
    expect(Number(/^takeline_process_resident_memory_bytes (\S+)$/m.exec(second)![1])).toBeGreaterThan(10e6);
    expect(Number(/^takeline_nodejs_heap_used_bytes (\S+)$/m.exec(second)![1])).toBeGreaterThan(1e6);
    // The loop was busy for the whole spin between the scrapes.
    expect(Number(/^takeline_nodejs_eventloop_utilization_ratio (\S+)$/m.exec(second)![1])).toBeGreaterThan(0.5);
    expect(await new ServiceMetrics({ processMetrics: false }).text()).not.toMatch(/takeline_(process|nodejs)_/);
  });

  it('counts jobs by kind and status at each scrape, every status of a known kind present, 0 included', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    let counts = [
      { kind: 'transcribe', status: 'complete', n: 3 },
      { kind: 'transcribe', status: 'failed', n: 1 },
      { kind: 'analysis', status: 'queued', n: 2 },
    ];
    let reads = 0;
    metrics.countFrom({
      jobCounts: async () => {
        reads++;
        return counts;
      },
    });
    expect(reads).toBe(0);
    const first = await lines(metrics, 'takeline_jobs{');
    expect(reads).toBe(1);
    expect(first).toContain('takeline_jobs{kind="transcribe",status="complete"} 3');
    expect(first).toContain('takeline_jobs{kind="transcribe",status="failed"} 1');
    expect(first).toContain('takeline_jobs{kind="transcribe",status="queued"} 0');
    expect(first).toContain('takeline_jobs{kind="analysis",status="queued"} 2');
    expect(first).toHaveLength(10);
    // Read afresh: a kind whose jobs are gone has no series left.
    counts = [{ kind: 'analysis', status: 'complete', n: 2 }];
    const second = await lines(metrics, 'takeline_jobs{');
    expect(second).toContain('takeline_jobs{kind="analysis",status="complete"} 2');
    expect(second.some((l) => l.includes('transcribe'))).toBe(false);
  });

  it('answers a scrape without the counts when the database does not, and counts that', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    metrics.countFrom({
      jobCounts: async () => {
        throw new Error('connection refused');
      },
      workerBeats: async () => {
        throw new Error('connection refused');
      },
    });
    const first = (await metrics.text()).split('\n');
    expect(first.filter((l) => /^takeline_(jobs|worker)/.test(l))).toEqual([]);
    // The counter is read side by side with the failing reads: the next scrape shows this one's failures.
    expect(await lines(metrics, 'takeline_metrics_source_errors_total')).toEqual([
      'takeline_metrics_source_errors_total{source="jobs"} 1',
      'takeline_metrics_source_errors_total{source="workers"} 1',
    ]);
  });

  it('counts live workers and gives each recent one its last heartbeat, with one read per scrape', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    const now = Date.now();
    let reads = 0;
    metrics.countFrom({
      jobCounts: async () => [],
      workerBeats: async () => {
        reads++;
        return [
          { worker: 'a-1', heartbeatAt: new Date(now - 5_000), live: true },
          { worker: 'b-2', heartbeatAt: new Date(now - 60_000), live: false },
          { worker: 'c-3', heartbeatAt: new Date(now - QUIET_WORKER_LISTED_MS - 60_000), live: false },
        ];
      },
    });
    expect(await lines(metrics, 'takeline_worker')).toEqual([
      'takeline_workers_live 1',
      `takeline_worker_last_heartbeat_timestamp_seconds{worker="a-1"} ${(now - 5_000) / 1000}`,
      `takeline_worker_last_heartbeat_timestamp_seconds{worker="b-2"} ${(now - 60_000) / 1000}`,
    ]);
    expect(reads).toBe(1);
  });

  it('has no worker gauges on the desktop, which has no workers', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    metrics.countFrom({ jobCounts: async () => [] });
    expect(await metrics.text()).not.toContain('takeline_worker');
  });
});

describe('watchJobs', () => {
  it('observes the queue wait when a job starts and its duration by outcome when it settles; a job handed back is no outcome', async () => {
    const metrics = new ServiceMetrics({ processMetrics: false });
    const runner = new EventEmitter();
    let clock = Date.parse('2026-01-01T00:00:10Z');
    const queued: Record<string, string> = { a: '2026-01-01T00:00:00Z', b: '2026-01-01T00:00:08Z' };
    watchJobs(runner as never, metrics, async (id) => queued[id] ?? null, () => clock);
    runner.emit('started', job('a', 'transcribe', 'running'));
    runner.emit('started', job('b', 'analysis', 'running'));
    await new Promise((r) => setImmediate(r));
    clock += 4_000;
    runner.emit('settled', job('a', 'transcribe', 'complete'));
    runner.emit('settled', job('b', 'analysis', 'queued'));
    const out = await lines(metrics, 'takeline_job_');
    expect(out).toContain('takeline_job_queue_wait_seconds_sum{kind="transcribe"} 10');
    expect(out).toContain('takeline_job_queue_wait_seconds_sum{kind="analysis"} 2');
    expect(out).toContain('takeline_job_duration_seconds_sum{kind="transcribe",outcome="complete"} 4');
    expect(out).toContain('takeline_job_duration_seconds_count{kind="transcribe",outcome="complete"} 1');
    expect(out.some((l) => l.startsWith('takeline_job_duration_seconds_count{kind="analysis"'))).toBe(false);
    // Run to its end later: observed then.
    runner.emit('started', job('b', 'analysis', 'running'));
    clock += 1_000;
    runner.emit('settled', job('b', 'analysis', 'failed'));
    expect(await lines(metrics, 'takeline_job_duration_seconds_count{kind="analysis"')).toEqual(['takeline_job_duration_seconds_count{kind="analysis",outcome="failed"} 1']);
  });
});
