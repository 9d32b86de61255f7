/**
 * What the metrics cost a team's API node. (1) The scrape: a node over a jobs table of 20,000 jobs is scraped
 * 100 times; the CPU per scrape of the node's process and of the PostgreSQL server (its whole process tree, which
 * serves only this bench, less what it and the node spend idle over as long: pg-boss's polling), and what one
 * scrape every 15 s is of a core, both together. (2) The request-metrics middleware: the median of a
 * read (GET /v1/speech/projects, one client at a time), rounds alternating between this tree's node and one
 * from a tree without the metrics over the same database; and the middleware's own CPU per request in-process.
 *
 *   git worktree add /tmp/before <commit> --detach && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node --import tsx bench/team/metrics-cost.ts [--before /tmp/before] [--rounds 6] [--reads 300]
 *
 * On a loaded machine the medians swing with the scheduler; the node's CPU per read is the steadier comparison.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Histogram, Registry } from 'prom-client';
import { median } from '../../src/service/dsp/stats';
import { readProcStat } from '../../src/service/proc-stat';
import { requestMetrics } from '../../src/service/metrics/request-metrics';
import { PostgresSql, openPostgresPool } from '../../src/service/storage/sql/postgres-sql';
import { insertSessions } from '../../test/helpers/sql-backends';
import { startPostgres } from '../../test/helpers/postgres';
import { rawRequest, startServiceProcess, type ServiceProcess } from '../../test/helpers/service';
import { teamEnv } from '../../test/helpers/team';
import { flagValue } from '../lib/args';
import { processTreeCpuSeconds } from './tree-cpu';

const before = flagValue('--before');
const rounds = Number(flagValue('--rounds') ?? 6);
const reads = Number(flagValue('--reads') ?? 300);
const JOBS = 20_000;
const SCRAPES = 100;

const processCpu = (pid: number) => readProcStat(pid).cpuSeconds;
const cpuPerRead = new Map<ServiceProcess, number[]>();

/** The median of `n` reads one at a time, and the node's process CPU per read over them (µs; robust to a loaded machine's scheduling). */
async function readMedianMs(node: ServiceProcess, n: number): Promise<number> {
  const cpu0 = processCpu(node.child.pid!);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await rawRequest(`${node.url}/v1/speech/projects`, { headers: { Authorization: `Bearer ${node.key}` } });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.status !== 200) throw new Error(`read: ${res.status}`);
  }
  cpuPerRead.set(node, [...(cpuPerRead.get(node) ?? []), ((processCpu(node.child.pid!) - cpu0) / n) * 1e6]);
  return median(times)!;
}

/** The middleware's own work per request, in-process: a request through it and its finish, µs of CPU. */
function middlewareMicros(n: number): number {
  const histogram = new Histogram({ name: 'r', help: 'r', labelNames: ['method', 'route', 'status'], registers: [new Registry()] });
  const middleware = requestMetrics(histogram);
  const routes = ['/:session_id', '/:session_id/intelligence', '/'];
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const req = { method: 'GET', originalUrl: `/v1/speech/transcriptions/${i}/intelligence`, route: { path: routes[i % 3] } };
    const res = Object.assign(new EventEmitter(), { statusCode: 200 });
    middleware(req as never, res as never, () => {});
    res.emit('finish');
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const pg = await startPostgres();
const nodes: ServiceProcess[] = [];
try {
  const env = await teamEnv(pg, 'metrics_cost');
  const node = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR });
  nodes.push(node);
  const pool = openPostgresPool(env.TAKELINE_DATABASE_URL!, 2);
  const sql = new PostgresSql(pool);
  const sessions = Array.from({ length: 200 }, (_, i) => `s${i}`);
  await insertSessions(sql, sessions, { status: 'complete' });
  await pool.query(
    `INSERT INTO jobs (id, kind, session_id, status, payload_json, created_at, seq)
     SELECT 'j' || i, (ARRAY['transcribe','analysis','speaker-profiles','speaker-adaptation','dub-prepare','dub-revoice'])[1 + i % 6], 's' || (i % 200),
            (ARRAY['complete','complete','complete','complete','failed','cancelled','queued','running'])[1 + i % 8], '{}', '2026-01-01T00:00:00Z', i
     FROM generate_series(1, ${JOBS}) AS i`,
  );
  await pool.query('ANALYZE jobs');
  const countMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = process.hrtime.bigint();
    await pool.query('SELECT kind, status, COUNT(*) AS n FROM jobs GROUP BY kind, status');
    countMs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  // The server's first process (its postmaster), whose tree holds every backend.
  const dataDirectory = (await pool.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
  const postmaster = Number(fs.readFileSync(path.join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
  await pool.end();

  // (1) The scrape.
  const pid = node.child.pid!;
  for (let i = 0; i < 5; i++) await rawRequest(`${node.url}/metrics`);
  const IDLE_SECONDS = 10;
  const idle0 = { node: processCpu(pid), db: processTreeCpuSeconds(postmaster) };
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idleRate = { node: (processCpu(pid) - idle0.node) / IDLE_SECONDS, db: (processTreeCpuSeconds(postmaster) - idle0.db) / IDLE_SECONDS };
  const cpu0 = processCpu(pid);
  const db0 = processTreeCpuSeconds(postmaster);
  const wall0 = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < SCRAPES; i++) {
    const res = await rawRequest(`${node.url}/metrics`);
    if (res.status !== 200) throw new Error(`scrape: ${res.status}`);
    bytes = res.body.length;
  }
  const wall = Number(process.hrtime.bigint() - wall0) / 1e9;
  const cpuPerScrape = (processCpu(pid) - cpu0 - idleRate.node * wall) / SCRAPES;
  const dbPerScrape = (processTreeCpuSeconds(postmaster) - db0 - idleRate.db * wall) / SCRAPES;
  const wallPerScrape = wall / SCRAPES;
  console.log(`scrape: ${bytes} bytes; ${SCRAPES} scrapes over ${JOBS} jobs, wall ${(wallPerScrape * 1000).toFixed(1)} ms each; CPU per scrape beyond idle:`);
  console.log(`        node ${(cpuPerScrape * 1000).toFixed(2)} ms, PostgreSQL ${(dbPerScrape * 1000).toFixed(2)} ms (idle: node ${(idleRate.node * 1000).toFixed(1)} ms/s, PostgreSQL ${(idleRate.db * 1000).toFixed(1)} ms/s)`);
  const share = ((cpuPerScrape + dbPerScrape) / 15) * 100;
  console.log(`        every 15 s: ${share.toFixed(3)} % of a core (node ${((cpuPerScrape / 15) * 100).toFixed(3)} %, PostgreSQL ${((dbPerScrape / 15) * 100).toFixed(3)} %); bar < 1 %: ${share < 1 ? 'met' : 'MISSED'}`);
  console.log(`        the database's count of the jobs alone, median ${median(countMs)!.toFixed(2)} ms (client-side wall)`);

  // (2) The middleware.
  middlewareMicros(20_000);
  const micros = median([middlewareMicros(50_000), middlewareMicros(50_000), middlewareMicros(50_000)])!;
  console.log(`middleware alone: ${micros.toFixed(2)} us of CPU per request (in-process, median of 3 x 50,000)`);
  if (before) {
    const old = await startServiceProcess({ env, dataDir: env.TAKELINE_DATA_DIR, cwd: path.resolve(before) });
    nodes.push(old);
    await readMedianMs(node, 50);
    await readMedianMs(old, 50);
    const medians: Record<'with' | 'without', number[]> = { with: [], without: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
      for (const which of order) medians[which].push(await readMedianMs(which === 'with' ? node : old, reads));
      console.log(`round ${r + 1}: with ${medians.with.at(-1)!.toFixed(3)} ms, without ${medians.without.at(-1)!.toFixed(3)} ms`);
    }
    const w = median(medians.with)!;
    const wo = median(medians.without)!;
    console.log(`read median (GET /v1/speech/projects, one client): with the metrics ${w.toFixed(3)} ms, without ${wo.toFixed(3)} ms, difference ${(w - wo).toFixed(3)} ms`);
    const cpuWith = median(cpuPerRead.get(node)!.slice(1))!;
    const cpuWithout = median(cpuPerRead.get(old)!.slice(1))!;
    console.log(`node CPU per read (median of the rounds): with the metrics ${cpuWith.toFixed(0)} us, without ${cpuWithout.toFixed(0)} us`);
  }
} finally {
  for (const n of nodes) await n.stop();
  await pg.stop();
}
