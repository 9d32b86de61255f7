/**
 * Analysis benchmark: the audio-intelligence analysis's speed and memory, and the service's read latency
 * while an analysis runs.
 *
 *   npm run bench -- analysis            (all three parts)
 *   node --import tsx bench/analysis/run.ts [--skip-hour] [--skip-latency] [--skip-long] [--json]
 *
 * 1. long/ (13.8 min, 121 lines): the analysis process exactly as the service runs it, from a fresh run;
 *    wall time, RTF, CPU, per-stage seconds, peak RSS of this process tree. Target RTF ≤ 0.15 on 2 cores.
 * 2. One hour: long/ looped to 60 min with ffmpeg, its transcript tiled over the hour; peak RSS (target ≤ 1 GB).
 * 3. Latency: a real `npm run serve` analysing long/ while autocannon keeps 50 connections busy on
 *    GET …/intelligence and GET …/transcriptions/{id}; p50/p99/max and errors, then the same load with the
 *    service idle, side by side. Target p99 ≤ 50 ms while analysing.
 *
 * The transcript of long/ comes from the service's own pipeline, cached in the OS temp folder by file hash
 * (`--fresh-transcript` makes it again), so the bench measures the analysis, not recognition.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostNote, readLoad, threadCpuSeconds, type ReadMode } from '../lib/read-load';
import type { Transcript } from '../../src/service/speech/types';
import { runAnalysisProcess } from '../../src/service/analysis/analysis-job';
import type { AnalysisMessage } from '../../src/service/analysis/protocol';
import { openDatabase } from '../../src/service/storage/database';
import { DataLayout } from '../../src/service/storage/files';
import { openStores } from '../../src/service/storage/stores';
import { SqlJobStore } from '../../src/service/storage/job-store';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { JobRunner } from '../../src/service/jobs/job-runner';
import { SqlAnalysisStore } from '../../src/service/storage/analysis-store';
import { AnalysisService } from '../../src/service/analysis/analysis-service';
import { treeCpuSeconds } from '../lib/proc-cpu';
import { TreeMemory } from '../lib/tree-memory';
import { tileTranscript } from '../studio/tile-transcript';
import { startServiceProcess } from '../../test/helpers/service';
import { analysisRequest, cachedTranscript, loopTo } from '../lib/long-cache';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const modelsDir = process.env.TAKELINE_MODELS_DIR || path.join(sharedDir, 'models');
const longFile = path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const has = (flag: string) => process.argv.includes(flag);
const log = (s: string) => process.stdout.write(`${s}\n`);
const mb = (kb: number) => Math.round(kb / 1024);

const longTranscript = () => cachedTranscript(longFile, log, { fresh: has('--fresh-transcript') });


/** One analysis in its process as the service runs it; figures of this process tree. */
async function measure(label: string, file: string, transcript: Transcript): Promise<Record<string, unknown>> {
  const memory = new TreeMemory();
  memory.start();
  const stages: Record<string, number> = {};
  let current: string | null = null;
  let mark = performance.now();
  // Lines are published twice (measured, then listened to): count each once.
  const lineIds = new Set<number>();
  const cpu0 = treeCpuSeconds();
  const t0 = performance.now();
  await runAnalysisProcess(
    analysisRequest(file, transcript, modelsDir),
    (m: AnalysisMessage) => {
      if (m.type === 'stage' && m.stage !== current) {
        const now = performance.now();
        if (current) stages[current] = (stages[current] ?? 0) + (now - mark) / 1000;
        current = m.stage;
        mark = now;
      }
      if (m.type === 'lines') for (const l of m.lines) lineIds.add(l.id);
    },
    new AbortController().signal,
  );
  const wall = (performance.now() - t0) / 1000;
  if (current) stages[current] = (stages[current] ?? 0) + (performance.now() - mark) / 1000;
  memory.stop();
  const cpu = treeCpuSeconds() - cpu0;
  const duration = transcript.duration;
  const report = {
    label,
    duration_s: +duration.toFixed(1),
    lines: lineIds.size,
    wall_s: +wall.toFixed(2),
    rtf: +(wall / duration).toFixed(4),
    cpu_s: +cpu.toFixed(1),
    rtf_cpu_bound: +(cpu / os.availableParallelism() / duration).toFixed(4),
    stages_s: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, +v.toFixed(2)])),
    tree_peak_rss_mb: mb(memory.peakTreeKb),
    load_avg_1m: +os.loadavg()[0]!.toFixed(2),
  };
  log(`  ${label}: ${JSON.stringify(report)}`);
  return report;
}


const load = (url: string, headers: Record<string, string>, seconds: number, connections = 50, mode: ReadMode = 'plain') =>
  readLoad({ url: new URL(url).origin, paths: [new URL(url).pathname], headers, seconds, connections, mode });

/** Each route with plain GETs, then as pollers sending If-None-Match (see bench/lib/read-load.ts). */
async function bothModes(docUrl: string, sessionUrl: string, headers: Record<string, string>, seconds: number) {
  return {
    intelligence: await load(docUrl, headers, seconds),
    intelligence_poll: await load(docUrl, headers, seconds, 50, 'poll'),
    session: await load(sessionUrl, headers, seconds),
    session_poll: await load(sessionUrl, headers, seconds, 50, 'poll'),
  };
}

async function latency(transcript: Transcript): Promise<Record<string, unknown>> {
  const first = await startServiceProcess({ env: { TAKELINE_MODELS_DIR: modelsDir } });
  const auth = { Authorization: `Bearer ${first.key}` };
  const form = new FormData();
  form.append('project_key', 'bench-analysis');
  form.append('file', await fs.openAsBlob(longFile, { type: 'audio/flac' }), 'long.flac');
  const created = await fetch(`${first.url}/v1/speech/transcriptions`, { method: 'POST', headers: auth, body: form });
  const { id } = (await created.json()) as { id: string };
  await first.stop();
  // The transcript is written with the service's own stores and its analysis queued, as the transcribe
  // job does on completion (the upload's own transcription job is cancelled first).
  const db = openDatabase(new DataLayout(first.dataDir).database);
  db.prepare("UPDATE jobs SET status = 'cancelled' WHERE session_id = ? AND status IN ('queued', 'running')").run(id);
  const sql = new SqliteSql(db);
  const database = openStores(sql);
  await new AnalysisService(database, new SqlAnalysisStore(sql), database.sessions, new JobRunner(new SqlJobStore(sql))).queue(id, transcript.duration);
  await database.sessions.complete(id, transcript);
  db.close();

  const svc = await startServiceProcess({ dataDir: first.dataDir, env: { TAKELINE_MODELS_DIR: modelsDir } });
  const docUrl = `${svc.url}/v1/speech/transcriptions/${id}/intelligence`;
  const status = async () => ((await (await fetch(docUrl, { headers: auth })).json()) as { intelligence: { status: string; stage: string; segments: unknown[]; timings: { total: number } } }).intelligence;
  for (let i = 0; i < 600 && (await status()).status !== 'running'; i++) await new Promise((r) => setTimeout(r, 100));
  const seconds = Number(process.env.ANALYSIS_LATENCY_SECONDS ?? 10);
  const sessionUrl = `${svc.url}/v1/speech/transcriptions/${id}`;
  log(`  host before the load: ${hostNote()}`);
  const busy = await bothModes(docUrl, sessionUrl, auth, seconds);
  const during = await status();
  log(`  while analysing (stage ${during.stage}, ${during.segments.length} lines so far; ${hostNote()}):`);
  for (const [route, figures] of Object.entries(busy)) log(`    ${route}: ${JSON.stringify(figures)}`);
  let s = await status();
  while (s.status === 'queued' || s.status === 'running') {
    await new Promise((r) => setTimeout(r, 1000));
    s = await status();
  }
  const idle = await bothModes(docUrl, sessionUrl, auth, seconds);
  log(`  idle (analysis ${s.status}, ${s.segments.length} lines, ${s.timings.total.toFixed(1)} s under load; ${hostNote()}):`);
  for (const [route, figures] of Object.entries(idle)) log(`    ${route}: ${JSON.stringify(figures)}`);
  // What one request costs on its own (one connection), and how much it carries: at 50 connections a
  // request waits behind the others, so p99 ≈ 50 × this when the service is the bottleneck.
  const bytes = async (url: string) => (await (await fetch(url, { headers: auth })).arrayBuffer()).byteLength;
  // Also the CPU time the service's event loop spends per request (its main thread's utime + stime): unlike
  // latency it hardly depends on what else the host runs, so it compares builds measured on a busy machine.
  const pid = svc.child.pid!;
  const oneClient = async (url: string, mode: ReadMode) => {
    const cpu0 = threadCpuSeconds(pid);
    const figures = await load(url, auth, 5, 1, mode);
    return { ...figures, loop_cpu_ms_per_request: +(((threadCpuSeconds(pid) - cpu0) * 1000) / figures.requests).toFixed(3) };
  };
  const single = {
    intelligence: { bytes: await bytes(docUrl), ...(await oneClient(docUrl, 'plain')) },
    intelligence_poll: await oneClient(docUrl, 'poll'),
    session: { bytes: await bytes(sessionUrl), ...(await oneClient(sessionUrl, 'plain')) },
    session_poll: await oneClient(sessionUrl, 'poll'),
  };
  log(`  one client, idle (${hostNote()}):`);
  for (const [route, figures] of Object.entries(single)) log(`    ${route}: ${JSON.stringify(figures)}`);
  await svc.stop();
  fs.rmSync(first.dataDir, { recursive: true, force: true });
  return { busy, idle, single, analysis_status: s.status, analysis_seconds_under_load: s.timings.total };
}

async function main(): Promise<void> {
  const transcript = await longTranscript();
  const report: Record<string, unknown> = { cores: os.availableParallelism() };
  log(`analysis bench on ${hostNote()}; the service runs at the bench's niceness, its background work TAKELINE_BACKGROUND_NICE (${process.env.TAKELINE_BACKGROUND_NICE ?? 10}) steps below`);
  log('  latency alone, as measured for bench/analysis/README.md: node --import tsx bench/analysis/run.ts --skip-long --skip-hour');
  if (!has('--skip-long')) report.long = await measure('long/ (13.8 min)', longFile, transcript);
  if (!has('--skip-hour')) {
    const hour = 3600;
    report.hour = await measure('one hour (long/ looped)', loopTo(longFile, hour), tileTranscript(transcript, hour));
  }
  if (!has('--skip-latency')) report.latency = await latency(transcript);
  if (has('--json')) log(JSON.stringify(report, null, 2));
}

main().catch((error) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
