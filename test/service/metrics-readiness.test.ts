import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll';
import { postgresPerFile } from '../helpers/postgres-per-file';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../helpers/service';
import { teamEnv, teamQuery } from '../helpers/team';

const pg = postgresPerFile();
const started: ServiceProcess[] = [];
afterAll(async () => {
  for (const svc of started) await svc.stop();
});

/** This machine's address on a non-loopback interface (where a load balancer or a remote scraper connects). */
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
};

describe('/metrics and /readyz on the desktop service', () => {
  it('serves the metrics to a loopback scraper without a key, labels requests by route pattern, and refuses a rebound Host', { timeout: 120_000 }, async () => {
    const svc = await startServiceProcess();
    started.push(svc);
    const auth = { Authorization: `Bearer ${svc.key}` };
    expect((await rawRequest(`${svc.url}/v1/speech/projects`, { headers: auth })).status).toBe(200);
    expect((await rawRequest(`${svc.url}/v1/speech/transcriptions/0b5e7f64-0000-4000-8000-000000000000`, { headers: auth })).status).toBe(404);
    const res = await rawRequest(`${svc.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text();
    expect(value(text, 'takeline_http_request_duration_seconds_count{method="GET",route="/v1/speech/projects",status="200"}')).toBe(1);
    expect(value(text, 'takeline_http_request_duration_seconds_count{method="GET",route="/v1/speech/transcriptions/:session_id",status="404"}')).toBe(1);
    expect(text).not.toContain('0b5e7f64');
    // The desktop runs its own jobs: no worker gauges; the process's own CPU is there.
    expect(text).not.toContain('takeline_workers_live');
    expect(text).toMatch(/^takeline_process_cpu_seconds_total /m);
    expect(text).toMatch(/^takeline_nodejs_eventloop_utilization_ratio /m);
    // A web page whose name rebinds to 127.0.0.1 reaches the port from loopback, under its own Host.
    expect((await rawRequest(`${svc.url}/metrics`, { headers: { Host: 'evil.example' } })).status).toBe(403);
  });

  it('answers /readyz 503 naming the storage while the data folder is gone, 200 again once it is back', { timeout: 120_000 }, async () => {
    const svc = await startServiceProcess();
    started.push(svc);
    // A check has 2 s to answer: on a loaded machine one probe may miss it, as a load balancer's would; it probes again.
    const readyAgain = async () => {
      let answer = await rawRequest(`${svc.url}/readyz`);
      for (let i = 0; i < 10 && answer.status !== 200; i++) answer = await rawRequest(`${svc.url}/readyz`);
      return answer;
    };
    const ready = await readyAgain();
    expect(ready.status).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', failed: [], checks: { database: { status: 'ok' }, storage: { status: 'ok' } } });
    // The volume is gone (a file where the folder was); the open database still answers.
    const aside = `${svc.dataDir}.aside`;
    fs.renameSync(svc.dataDir, aside);
    fs.writeFileSync(svc.dataDir, '');
    try {
      const down = await rawRequest(`${svc.url}/readyz`);
      expect(down.status).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', failed: ['storage'], checks: { database: { status: 'ok' }, storage: { status: 'failed' } } });
      // Liveness is another question: the process is alive.
      expect((await rawRequest(`${svc.url}/healthz`)).status).toBe(200);
    } finally {
      fs.rmSync(svc.dataDir);
      fs.renameSync(aside, svc.dataDir);
    }
    expect((await readyAgain()).status).toBe(200);
    expect(svc.output()).toMatch(/readiness: the storage \(.*\) does not answer/);
    // The line reaches us through the child's stdout pipe, which may trail the HTTP answer a little.
    for (const until = Date.now() + 10_000; !/readiness: the storage answers again/.test(svc.output()) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    expect(svc.output()).toMatch(/readiness: the storage answers again/);
  });
});

describe('/metrics and /readyz on a team API node', () => {
  it('answers /readyz to a load balancer at the node’s own address, 503 naming the database while it refuses connections, and counts the errors', { timeout: 180_000 }, async () => {
    const env = await teamEnv(pg(), 'readyz_team');
    const api = await startServiceProcess({ dataDir: env.TAKELINE_DATA_DIR, env: { ...env, TAKELINE_HOST: '0.0.0.0' } });
    started.push(api);
    const at = lanAddress ? `http://${lanAddress}:${api.port}` : api.url;
    const host: Record<string, string> = lanAddress ? { Host: `${lanAddress}:${api.port}` } : {};
    expect((await rawRequest(`${at}/readyz`, { headers: host })).status).toBe(200);
    // No token configured: the metrics stay on this machine.
    if (lanAddress) expect((await rawRequest(`${at}/metrics`, { headers: host })).status).toBe(403);
    const errorsBefore = value((await rawRequest(`${api.url}/metrics`)).text(), 'takeline_database_errors_total');
    expect(errorsBefore).toBe(0);

    const admin = pg().url;
    const database = new URL(env.TAKELINE_DATABASE_URL!).pathname.slice(1);
    await teamQuery(admin, `ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
    try {
      await teamQuery(admin, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
      const down = await until(() => rawRequest(`${at}/readyz`, { headers: host }), (r) => r.status === 503, 30_000);
      expect(down.status).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', failed: ['database'], checks: { database: { status: 'failed' }, storage: { status: 'ok' } } });
      // The scrape still answers: the team's counts are absent, the failures counted.
      const scrape = await rawRequest(`${api.url}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.text()).not.toMatch(/^takeline_workers_live /m);
      expect(value(scrape.text(), 'takeline_database_errors_total')).toBeGreaterThan(0);
    } finally {
      await teamQuery(admin, `ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
    }
    const back = await until(() => rawRequest(`${at}/readyz`, { headers: host }), (r) => r.status === 200, 30_000);
    expect(back.json()).toMatchObject({ status: 'ready', failed: [] });
    expect(api.output()).toMatch(/readiness: the database does not answer/);
  });
});
