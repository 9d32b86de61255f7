import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audioDir } from '../helpers/paths';
import { freePort } from '../helpers/free-port';
import { until } from '../helpers/poll';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { prometheusAvailable, startPrometheus, type ThrowawayPrometheus } from '../helpers/prometheus';
import { rawRequest, startServiceProcess, transcriptionSettled, uploadRecording, type ServiceProcess } from '../helpers/service';
import { sessionJobsDone, startWorker, teamEnv, teamQuery, type Worker } from '../helpers/team';

const pg = postgresPerFile();

/** The value of a series in Prometheus' text format as a node answers it (null when absent). */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe('a team scraped by a real Prometheus', () => {
  it.skipIf(!prometheusAvailable)(
    'scrapes the API node and a worker (its own metrics port, a bearer token) while a recording is worked on, and answers PromQL on job counts as the jobs table has them',
    { timeout: 900_000 },
    async () => {
      const env = await teamEnv(pg(), 'team_metrics');
      const token = crypto.randomBytes(24).toString('hex');
      const workerPort = await freePort();
      let api: ServiceProcess | null = null;
      let worker: Worker | null = null;
      let prometheus: ThrowawayPrometheus | null = null;
      try {
        api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR!, env: { ...env, TAKELINE_METRICS_TOKEN: token } });
        worker = await startWorker({ ...env, TAKELINE_METRICS_TOKEN: token, TAKELINE_METRICS_PORT: String(workerPort) });
        const scrape = (at: string, headers: Record<string, string> = { Authorization: `Bearer ${token}` }) => rawRequest(`${at}/metrics`, { headers });
        // The token is asked of every scraper, loopback included, once it is set.
        expect((await scrape(api.url, {})).status).toBe(401);
        expect((await scrape(api.url, { Authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
        expect((await scrape(`http://127.0.0.1:${workerPort}`, {})).status).toBe(401);
        expect((await rawRequest(`http://127.0.0.1:${workerPort}/readyz`)).json()).toMatchObject({ status: 'ready', failed: [] });

        prometheus = await startPrometheus([
          { job: 'api', address: `127.0.0.1:${api.port}`, token },
          { job: 'worker', address: `127.0.0.1:${workerPort}`, token },
        ]);
        const prom = prometheus;
        const value = async (promql: string) => (await prom.query(promql))[0]?.value ?? null;
        await until(() => prom.query('up == 1'), (up) => up.length === 2, 60_000);

        // A 10-s reading: transcribed, then analysed and profiled, by the worker, scraped every second meanwhile.
        const id = await uploadRecording(api, fs.readFileSync(path.join(audioDir, 'asr', 'ljspeech_LJ001-0001.flac')), 'lj.flac', 'metrics');
        expect(await transcriptionSettled(api, id, 600_000)).toBe('complete');
        await sessionJobsDone(env.TAKELINE_DATABASE_URL!, id, 600_000);

        // PromQL on job counts answers what the jobs table holds (every node reports the team's counts: max across them).
        const table = await teamQuery<{ kind: string; status: string; n: number }>(env.TAKELINE_DATABASE_URL!, 'SELECT kind, status, count(*)::int AS n FROM jobs GROUP BY kind, status');
        expect(table.find((r) => r.kind === 'transcribe')).toEqual({ kind: 'transcribe', status: 'complete', n: 1 });
        const expected = Object.fromEntries(table.map((r) => [`${r.kind}/${r.status}`, r.n]));
        const seen = async () => Object.fromEntries((await prom.query('max by (kind, status) (takeline_jobs) > 0')).map((s) => [`${s.metric.kind}/${s.metric.status}`, s.value]));
        expect(await until(seen, (got) => JSON.stringify(got) === JSON.stringify({ ...got, ...expected }) && Object.keys(got).length === table.length, 30_000)).toEqual(expected);
        expect(await prom.query('takeline_jobs{kind="transcribe",status="complete"}')).toHaveLength(2);
        // Scraped while it worked: the transcription was seen running, then nothing queued or running is left.
        expect(await value('max_over_time(takeline_jobs{job="api",kind="transcribe",status="running"}[10m])')).toBe(1);
        expect(await value('sum(takeline_jobs{job="api",status=~"queued|running"})')).toBe(0);

        // Durations and queue waits come from the worker, which ran the jobs; the API node ran none.
        const ran = await until(
          () => prom.query('sum by (kind) (takeline_job_duration_seconds_count{job="worker",outcome="complete"})'),
          (r) => r.length === table.length,
          30_000,
        );
        expect(Object.fromEntries(ran.map((r) => [r.metric.kind, r.value]))).toEqual(Object.fromEntries(table.map((r) => [r.kind, r.n])));
        expect(await value('takeline_job_queue_wait_seconds_count{job="worker",kind="transcribe"}')).toBe(1);
        expect(await value('takeline_job_duration_seconds_sum{job="worker",kind="transcribe",outcome="complete"}')).toBeGreaterThan(1);
        expect(await prom.query('takeline_job_duration_seconds_count{job="api"}')).toEqual([]);

        // Requests by route pattern and status: the upload and the polls, never a recording's id in a label.
        expect(await value('takeline_http_request_duration_seconds_count{job="api",method="POST",route="/v1/speech/transcriptions",status="201"}')).toBe(1);
        expect(await value('sum(takeline_http_request_duration_seconds_count{job="api",method="GET",route="/v1/speech/transcriptions/:session_id",status="200"})')).toBeGreaterThan(0);
        expect(await prom.query(`{__name__=~"takeline_.+", route=~".*${id}.*"}`)).toEqual([]);
        expect(await value('sum(takeline_storage_errors_total)')).toBe(0);

        // Worker heartbeats: one live worker, named as its folders are, its heartbeat recent.
        expect(await value('max(takeline_workers_live)')).toBe(1);
        const beats = await prom.query('takeline_worker_last_heartbeat_timestamp_seconds{job="api"}');
        expect(beats.map((b) => b.metric.worker)).toEqual([expect.stringMatching(new RegExp(`-${worker.child.pid}$`))]);
        expect(Date.now() / 1000 - beats[0]!.value).toBeLessThan(40);

        // A worker killed outright: it goes quiet, and within three of its heartbeats the API node counts no live worker.
        await worker.kill();
        const live = await until(async () => sample((await scrape(api!.url)).text(), 'takeline_workers_live'), (n) => n === 0, 90_000);
        expect(live).toBe(0);
      } finally {
        await prometheus?.stop();
        await worker?.stop().catch(() => {});
        await api?.stop();
      }
    },
  );
});
