/**
 * Team server benchmark: a throwaway PostgreSQL, one API node (`npm run serve` in team mode) and
 * `npm run worker` processes, all real, on this machine.
 *
 *   npm run bench -- team                       (full run, ~20–25 min on 2 cores)
 *   node --import tsx bench/team/run.ts [--quick] [--short 16] [--long 2] [--long-seconds 150]
 *       [--kills 3] [--read-seconds 20] [--workers 1,2,3]
 *   TEAM_BENCH_QUICK=1 npm run bench -- team    (the same as --quick through `npm run bench`)
 *
 * Prints, in one run:
 * 1. Throughput of 1, 2 and 3 workers on the same batch of short recordings (the ASR set's 3–15 s files) and on
 *    a few long ones (cuts of long/): recordings per minute, from the batch's first enqueue (jobs.created_at)
 *    to its last job's end (jobs.finished_at), so the workers' start-up, done before the uploads, is not in it;
 *    every job a recording queues counts (transcription, analysis, speaker profiles). Each run starts its own
 *    workers and uses its own project (the same adaptation state for each), and prints the workers' CPU (their
 *    whole process trees, decoders included) over its wall time: the cores it kept busy.
 * 2. Queue latency, enqueue → start (jobs.created_at → started_at) over every job of those runs run once, p50
 *    and p99; also over the jobs enqueued while a worker was free (the engine's own pick-up time).
 * 3. Kill-to-resume: with 3 workers, the one running a transcription (a 90-s cut of long/, at ≥ 20 %) is
 *    kill -9ed; the time until another worker's attempt 2 starts (jobs.started_at of attempt 2), each sample
 *    and the median; each job must then complete.
 * 4. API p99 under 50 concurrent readers (GET of transcript and analysis documents, the project and session
 *    lists; bench/lib/read-load.ts, plain GETs) with 3 idle workers, then while the 3 workers transcribe.
 */
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgresPool } from '../../src/service/storage/sql/postgres-sql';
import { median } from '../../src/service/dsp/stats';
import { audioDir, modelsDir, repoRoot } from '../../test/helpers/paths';
import { startPostgres } from '../../test/helpers/postgres';
import { multipartBody, rawRequest, startServiceProcess } from '../../test/helpers/service';
import { startWorker, type Worker } from '../../test/helpers/team';
import { flagValue } from '../lib/args';
import { hostNote, readLoad, type ReadLoad } from '../lib/read-load';
import { writeResult } from '../lib/results';
import { batchThroughput, freeWorkerLatencies, handOverGaps, queueLatencies, ratio, runningAtOnce, summarize, type JobTimes, type Summary } from './figures';
import { processTreeCpuSeconds } from './tree-cpu';

const quick = process.argv.includes('--quick') || process.env.TEAM_BENCH_QUICK === '1';
const number = (flag: string, full: number, short: number) => Number(flagValue(flag) ?? (quick ? short : full));
const SHORT = number('--short', 16, 8);
const LONG = number('--long', 2, 2);
const LONG_SECONDS = number('--long-seconds', 150, 60);
const KILLS = number('--kills', 3, 1);
const READ_SECONDS = number('--read-seconds', 20, 8);
const WORKER_COUNTS = (flagValue('--workers') ?? '1,2,3').split(',').map(Number);
const KILL_SECONDS = 90;
for (const [name, value] of Object.entries({ SHORT, LONG, LONG_SECONDS, KILLS, READ_SECONDS })) {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0, not ${value}`);
}
if (WORKER_COUNTS.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--workers takes counts ≥ 1, e.g. 1,2,3');

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-team-'));
process.env.TAKELINE_TEST_TMP = scratch;
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// ---- audio -------------------------------------------------------------------------------------------------

/** `count` of the ASR set's 3–15 s files, spread evenly over the set (the same files every run). */
function shortRecordings(count: number): string[] {
  const rows = fs
    .readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .filter(([, d]) => Number(d) >= 3 && Number(d) <= 15)
    .map(([file]) => path.join(audioDir, 'asr', file!));
  if (count > rows.length) throw new Error(`only ${rows.length} files of 3–15 s in asr/`);
  return Array.from({ length: count }, (_, i) => rows[Math.floor((i * rows.length) / count)]!);
}

/** A cut of long/ (13.8 min of read speech), FLAC in the scratch folder. */
function cut(start: number, seconds: number): string {
  const out = path.join(scratch, `long-${start}-${seconds}.flac`);
  const result = spawnSync('ffmpeg', ['-v', 'error', '-ss', String(start), '-t', String(seconds), '-i', path.join(audioDir, 'long', 'read_speech_concat.flac'), '-c:a', 'flac', out]);
  if (result.status !== 0) throw new Error(`ffmpeg: ${result.stderr}`);
  return out;
}

// ---- processes ---------------------------------------------------------------------------------------------

const workersCpu = (workers: readonly Worker[]) => workers.reduce((sum, w) => sum + processTreeCpuSeconds(w.child.pid!), 0);

// ---- the run -----------------------------------------------------------------------------------------------

interface BatchFigures {
  batch: string;
  workers: number;
  recordings: number;
  jobs: Record<string, number>;
  failed: number;
  seconds: number;
  perMinute: number;
  ratio: number | null;
  workerCores: number;
  /** The workers' CPU seconds per recording: the work itself, whatever share of the machine they got. */
  cpuPerRecording: number;
  apiCores: number;
  queue: Summary;
  handOver: Summary;
  /** Jobs running at once over the window (`runningAtOnce`). */
  atOnce: { mean: number; max: number };
  loadavg: string;
}

const started = Date.now();
log(`team bench${quick ? ' (--quick)' : ''}: ${SHORT} short recordings, ${LONG} × ${LONG_SECONDS} s, workers ${WORKER_COUNTS.join(', ')}, ${KILLS} kill(s), readers ${READ_SECONDS} s; ${hostNote()}; /proc/loadavg ${loadavg()}`);
const shorts = shortRecordings(SHORT);
const longs = Array.from({ length: LONG }, (_, i) => cut(i * LONG_SECONDS, LONG_SECONDS));
const killCuts = Array.from({ length: KILLS }, (_, i) => cut(Math.min(828 - KILL_SECONDS, LONG * LONG_SECONDS + i * KILL_SECONDS), KILL_SECONDS));
const pg = await startPostgres();
const admin = openPostgresPool(pg.url, 1);
await admin.query('CREATE DATABASE team_bench');
await admin.end();
const databaseUrl = pg.url.replace(/\/[^/]*$/, '/team_bench');
const dataDir = fs.mkdtempSync(path.join(scratch, 'data-'));
// A team's nodes keep no studio key: the bench's requests use a TAKELINE_API_KEY every node accepts.
const env = { TAKELINE_DATABASE_URL: databaseUrl, TAKELINE_DATA_DIR: dataDir, TAKELINE_MODELS_DIR: modelsDir, TAKELINE_API_KEY: `tl_${crypto.randomBytes(24).toString('hex')}` };
const db = openPostgresPool(databaseUrl, 2);
const api = await startServiceProcess({ dataDir, env });
const auth = { Authorization: `Bearer ${api.key}` };
const live: Worker[] = [];
const failures: string[] = [];
// Interrupted (Ctrl-C): the processes this bench started go with it, PostgreSQL and the scratch folder too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const w of live) w.child.kill('SIGKILL');
    api.child.kill('SIGKILL');
    void pg.stop().finally(() => {
      fs.rmSync(scratch, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

async function upload(file: string, project: string): Promise<string> {
  const { body, contentType } = multipartBody([
    { name: 'project_key', value: project },
    { name: 'file', file: fs.readFileSync(file), filename: path.basename(file) },
  ]);
  const res = await rawRequest(`${api.url}/v1/speech/transcriptions`, { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
  if (res.status !== 201) throw new Error(`upload of ${file}: ${res.status} ${res.text()}`);
  return res.json().id as string;
}

async function jobsOf(sessions: readonly string[]): Promise<Array<JobTimes & { id: string; session_id: string; progress: number }>> {
  return (await db.query('SELECT id, session_id, kind, status, attempts, progress, created_at, started_at, finished_at FROM jobs WHERE session_id = ANY($1) ORDER BY seq', [sessions])).rows;
}

/** Waits until every recording's transcription has settled and, when it completed, its analysis, and nothing of theirs is left to run. */
async function settled(sessions: readonly string[], timeoutMs: number): Promise<JobTimes[]> {
  const deadline = Date.now() + timeoutMs;
  let previous = -1;
  for (;;) {
    const jobs = await jobsOf(sessions);
    const done =
      jobs.every((j) => j.finished_at !== null) &&
      sessions.every((s) => {
        const transcribe = jobs.find((j) => j.session_id === s && j.kind === 'transcribe');
        return transcribe && (transcribe.status !== 'complete' || jobs.some((j) => j.session_id === s && j.kind === 'analysis'));
      });
    // Twice in a row with the same jobs: nothing was queued in between by a job's end.
    if (done && jobs.length === previous) return jobs;
    previous = done ? jobs.length : -1;
    if (Date.now() > deadline) throw new Error(`batch not settled after ${timeoutMs / 1000} s: ${jobs.filter((j) => j.finished_at === null).length} jobs unfinished`);
    await sleep(done ? 1000 : 250);
  }
}

async function startWorkers(n: number): Promise<Worker[]> {
  const workers = await Promise.all(Array.from({ length: n }, () => startWorker(env)));
  live.push(...workers);
  return workers;
}

async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop().catch(() => {})));
  for (const w of workers) live.splice(live.indexOf(w), 1);
}

const allJobs: Array<{ run: string; workers: number; jobs: JobTimes[] }> = [];

async function batch(name: string, files: readonly string[], n: number, baseline?: number): Promise<BatchFigures & { sessions: string[] }> {
  const workers = await startWorkers(n);
  try {
    const apiPid = api.child.pid!;
    const cpu0 = workersCpu(workers);
    const api0 = processTreeCpuSeconds(apiPid);
    const t0 = Date.now();
    const project = `${name}-${n}w`;
    const sessions = await Promise.all(files.map((f) => upload(f, project)));
    const jobs = await settled(sessions, 40 * 60_000);
    const wall = (Date.now() - t0) / 1000;
    const cpu = workersCpu(workers) - cpu0;
    const cores = cpu / wall;
    const apiCores = (processTreeCpuSeconds(apiPid) - api0) / wall;
    // Which worker ran each job (its log names the jobs it started), for the timeline in bench/results/.
    const ranBy = (id: string) => workers.findIndex((w) => w.output().includes(`job ${id} (`));
    allJobs.push({ run: project, workers: n, jobs: jobs.map((j) => ({ ...j, worker: ranBy((j as { id?: string }).id ?? '') })) });
    workers.forEach((w, i) => writeResult(`team-worker-${project}-${i}.log`, w.output()));
    const { seconds, perMinute } = batchThroughput(jobs, files.length);
    const kinds: Record<string, number> = {};
    for (const j of jobs) kinds[j.kind] = (kinds[j.kind] ?? 0) + 1;
    const failed = jobs.filter((j) => j.status !== 'complete').length;
    if (failed) failures.push(`${project}: ${failed} jobs not complete (${jobs.filter((j) => j.status !== 'complete').map((j) => `${j.kind} ${j.status}`).join(', ')})`);
    const figures = {
      batch: name,
      workers: n,
      recordings: files.length,
      jobs: kinds,
      failed,
      seconds,
      perMinute,
      ratio: ratio(perMinute, baseline),
      workerCores: cores,
      cpuPerRecording: cpu / files.length,
      apiCores,
      queue: summarize(queueLatencies(jobs)),
      handOver: summarize(handOverGaps(jobs)),
      atOnce: runningAtOnce(jobs),
      loadavg: loadavg(),
      sessions,
    };
    log(
      `  ${name}, ${n} worker(s): ${files.length} recordings in ${seconds.toFixed(1)} s = ${perMinute.toFixed(2)} /min` +
        `${figures.ratio === null ? '' : ` (${figures.ratio.toFixed(2)}× 1 worker)`}; jobs ${JSON.stringify(kinds)}${failed ? `, ${failed} not complete` : ''}; ` +
        `workers' CPU ${cores.toFixed(2)} cores (${(cpu / files.length).toFixed(1)} CPU-s per recording), API node ${apiCores.toFixed(2)}; queue p50 ${figures.queue.p50?.toFixed(2)} s, p99 ${figures.queue.p99?.toFixed(2)} s; hand-over gap p50 ${figures.handOver.p50?.toFixed(2)} s (${figures.handOver.n}); ` +
        `jobs running at once ${figures.atOnce.mean.toFixed(2)} on average, ${figures.atOnce.max} at most; load ${figures.loadavg}`,
    );
    return figures;
  } finally {
    await stopWorkers(workers);
  }
}

async function throughput(name: string, files: readonly string[]): Promise<Array<BatchFigures & { sessions: string[] }>> {
  const runs: Array<BatchFigures & { sessions: string[] }> = [];
  for (const n of WORKER_COUNTS) runs.push(await batch(name, files, n, runs.find((r) => r.workers === 1)?.perMinute));
  return runs;
}

interface KillSample {
  resumeSeconds: number;
  progressAtKill: number;
  finalStatus: string;
  attempts: number;
}

const killSessions: string[] = [];

/** kill -9 of the worker running a transcription, at ≥ 20 %, and the time until another worker starts attempt 2. */
async function killSamples(workers: Worker[]): Promise<KillSample[]> {
  const samples: KillSample[] = [];
  for (const [i, file] of killCuts.entries()) {
    const session = await upload(file, 'kills');
    const poll = async () => (await jobsOf([session])).find((j) => j.kind === 'transcribe');
    let job = await poll();
    let victim: Worker | undefined;
    const deadline = Date.now() + 300_000;
    while (!(victim && job && job.progress >= 0.2 && job.status === 'running')) {
      if (Date.now() > deadline) throw new Error(`kill ${i + 1}: the transcription did not get to 20 % (${JSON.stringify(job)})`);
      await sleep(100);
      job = await poll();
      if (job) victim = workers.find((w) => w.output().includes(`job ${job!.id} (transcribe) started, attempt 1`));
    }
    const killedAt = Date.now();
    await victim.kill();
    workers.splice(workers.indexOf(victim), 1);
    live.splice(live.indexOf(victim), 1);
    let resumed: typeof job | undefined;
    while (!(resumed && resumed.attempts >= 2 && resumed.started_at)) {
      if (Date.now() > killedAt + 300_000) throw new Error(`kill ${i + 1}: no attempt 2 after 300 s`);
      await sleep(100);
      resumed = await poll();
    }
    const resumeSeconds = (Date.parse(resumed.started_at!) - killedAt) / 1000;
    // A replacement keeps three workers for the next sample; the transcription must then complete (what it
    // queues, analysis and adaptation, runs on beside the next sample).
    workers.push(...(await startWorkers(1)));
    let final = resumed;
    while (!final.finished_at) {
      if (Date.now() > killedAt + 900_000) throw new Error(`kill ${i + 1}: attempt 2 did not finish in 15 min`);
      await sleep(250);
      final = (await poll())!;
    }
    if (final.status !== 'complete') failures.push(`kill ${i + 1}: the transcription ended ${final.status}`);
    const sample = { resumeSeconds, progressAtKill: job.progress, finalStatus: final.status, attempts: final.attempts };
    log(`  kill ${i + 1}: killed at ${Math.round(job.progress * 100)} %, attempt 2 started ${resumeSeconds.toFixed(2)} s later; transcription ${final.status} after ${final.attempts} attempts; load ${loadavg()}`);
    samples.push(sample);
    killSessions.push(session);
  }
  return samples;
}

async function readers(paths: string[], during: string, headers = auth): Promise<ReadLoad & { during: string; host: string }> {
  const result = await readLoad({ url: api.url, paths, headers, seconds: READ_SECONDS, connections: 50, mode: 'plain' });
  if (result.errors) failures.push(`readers (${during}): ${result.errors} errors`);
  const figures = { ...result, during, host: hostNote() };
  log(`  50 readers, ${during}: ${result.requests} requests, ${result.errors} errors, p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms; ${figures.host}`);
  return figures;
}

const summary: Record<string, unknown> = {};
/** Runs one part; a part that fails is reported and the others still run (their figures stand on their own). */
async function part<T>(name: string, run: () => Promise<T>, fallback: T): Promise<T> {
  const t = Date.now();
  try {
    return await run();
  } catch (error) {
    failures.push(`${name}: ${(error as Error).stack ?? String(error)}`);
    return fallback;
  } finally {
    log(`  (${name}: ${((Date.now() - t) / 1000).toFixed(0)} s)`);
  }
}

try {
  const audioSeconds = shorts.reduce((s, f) => s + (Number(spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', f], { encoding: 'utf8' }).stdout) || 0), 0);
  log(`\nthroughput, short recordings (${SHORT} files of 3–15 s from asr/, ${audioSeconds.toFixed(0)} s of audio):`);
  const shortRuns = SHORT ? await part('short', () => throughput('short', shorts), []) : [];
  log(`\nthroughput, long recordings (${LONG} cuts of ${LONG_SECONDS} s from long/):`);
  const longRuns = LONG ? await part('long', () => throughput('long', longs), []) : [];

  log('\nkill -9 of the worker running a transcription (3 workers):');
  const workers = await startWorkers(3);
  const kills = KILLS ? await part('kills', () => killSamples(workers), [] as KillSample[]) : [];

  log(`\nAPI latency, 50 concurrent readers for ${READ_SECONDS} s (plain GETs):`);
  const reading = await part(
    'readers',
    async () => {
      const doc = shortRuns.at(-1)?.sessions[0] ?? longRuns.at(-1)?.sessions[0];
      const longDoc = longRuns.at(-1)?.sessions[0] ?? doc;
      if (!doc) throw new Error('no finished recording to read');
      const lastProject = shortRuns.at(-1) ? `short-${shortRuns.at(-1)!.workers}w` : `long-${longRuns.at(-1)!.workers}w`;
      const paths = [`/v1/speech/transcriptions/${doc}`, `/v1/speech/transcriptions/${doc}/intelligence`, `/v1/speech/transcriptions/${longDoc}`, `/v1/speech/transcriptions/${longDoc}/intelligence`, '/v1/speech/projects', `/v1/speech/transcriptions?project=${lastProject}`];
      for (const p of paths) {
        const res = await fetch(`${api.url}${p}`, { headers: auth });
        if (res.status !== 200) throw new Error(`GET ${p}: ${res.status}`);
      }
      const idle = await readers(paths, '3 idle workers');
      // The workers busy on every long cut and the short batch (their CPU over the readers' window is printed).
      const busySessions = await Promise.all([...longs, ...shorts].map((f) => upload(f, 'readers-busy')));
      const busyDeadline = Date.now() + 120_000;
      while ((await jobsOf(busySessions)).filter((j) => j.status === 'running').length < Math.min(3, busySessions.length) && Date.now() < busyDeadline) await sleep(200);
      const cpu0 = workersCpu(workers);
      const t0 = Date.now();
      const busy = await readers(paths, '3 workers transcribing');
      const busyCores = (workersCpu(workers) - cpu0) / ((Date.now() - t0) / 1000);
      const running = (await jobsOf(busySessions)).filter((j) => j.status === 'running').map((j) => j.kind);
      log(`    (workers' CPU over the readers' window: ${busyCores.toFixed(2)} cores; running at the end: ${running.join(', ') || 'nothing'})`);
      // The readers above use TAKELINE_API_KEY's key, which the node checks in memory; a user's key (made by
      // `npm run keys -- create`, as a team's people have) is looked up in the database on every request.
      const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/service/cli/keys.ts', 'create', 'bench-reader'], { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`keys create: ${made.stderr}`);
      const stored = await readers(paths, '3 workers transcribing, a stored key', { Authorization: `Bearer ${made.stdout.trim()}` });
      return { idle, busy: { ...busy, worker_cores: busyCores }, busy_stored_key: stored };
    },
    null,
  );

  // ---- summary ----
  // The kill samples' jobs count for the queue latency too (their transcriptions, run twice, are left out).
  if (killSessions.length) allJobs.push({ run: 'kills', workers: 3, jobs: (await jobsOf(killSessions)).filter((j) => j.finished_at !== null) });
  const everyJob = allJobs.flatMap((r) => r.jobs);
  // Every job's record, for a look at how the runs overlapped (bench/results/ is not committed).
  writeResult('team-jobs.json', JSON.stringify(allJobs, null, 1));
  const queue = summarize(queueLatencies(everyJob));
  // Not the kill samples': their transcriptions' records keep only attempt 2's start, so while attempt 1 ran
  // they do not count as running, and a job queued then would look as if it had found a free worker.
  const pickup = summarize(allJobs.filter((r) => r.run !== 'kills').flatMap((r) => freeWorkerLatencies(r.jobs, r.workers)));
  const gaps = allJobs.flatMap((r) => handOverGaps(r.jobs));
  const handOver = summarize(gaps);
  const table = (runs: BatchFigures[]) => runs.map((r) => `    ${r.workers} worker(s): ${r.perMinute.toFixed(2)} recordings/min (${r.seconds.toFixed(1)} s)${r.ratio === null ? '' : `, ${r.ratio.toFixed(2)}× 1 worker`}, workers' CPU ${r.workerCores.toFixed(2)} cores (${r.cpuPerRecording.toFixed(1)} CPU-s per recording), load ${r.loadavg}`).join('\n');
  const resume = kills.map((k) => k.resumeSeconds);
  log(`\nteam summary (${((Date.now() - started) / 60000).toFixed(1)} min; /proc/loadavg at the end ${loadavg()}):`);
  log(`  short recordings (${SHORT} × 3–15 s), first enqueue → last job's end (worker start-up excluded):\n${table(shortRuns)}`);
  log(`  long recordings (${LONG} × ${LONG_SECONDS} s):\n${table(longRuns)}`);
  log(`  queue latency enqueue → start, every job run once (${queue.n}; includes waiting behind the batch): p50 ${queue.p50?.toFixed(2)} s, p99 ${queue.p99?.toFixed(2)} s`);
  log(`  queue latency of the jobs enqueued while a worker was free (${pickup.n}): p50 ${pickup.p50?.toFixed(3)} s, p99 ${pickup.p99?.toFixed(3)} s`);
  log(`  hand-over gap, a waiting job's start after the previous job's end (${handOver.n}): p50 ${handOver.p50?.toFixed(2)} s, p99 ${handOver.p99?.toFixed(2)} s, total ${gaps.reduce((a, b) => a + b, 0).toFixed(0)} s`);
  log(`  kill -9 → attempt 2 started: ${resume.map((s) => `${s.toFixed(2)} s`).join(', ') || 'none'}; median ${median(resume)?.toFixed(2)} s`);
  if (reading) log(`  API p99 under 50 readers: idle workers ${reading.idle.p99} ms, workers transcribing ${reading.busy.p99} ms, the same with a stored key ${reading.busy_stored_key.p99} ms (target ≤ 50 ms)`);
  const shortTwo = shortRuns.find((r) => r.workers === 2)?.ratio;
  if (shortTwo != null) log(`  2 workers on short recordings: ${shortTwo.toFixed(2)}× 1 worker (target ≥ 1.6×: ${shortTwo >= 1.6 ? 'met' : 'NOT met'})`);
  Object.assign(summary, {
    short: shortRuns.map(({ sessions: _s, ...r }) => r),
    long: longRuns.map(({ sessions: _s, ...r }) => r),
    queue,
    queue_with_free_worker: pickup,
    hand_over_gaps: handOver,
    kills,
    readers: reading,
  });
  log(`\n${JSON.stringify(summary)}`);
} catch (error) {
  failures.push((error as Error).stack ?? String(error));
} finally {
  await Promise.all(live.map((w) => w.stop().catch(() => {})));
  await api.stop();
  await db.end();
  await pg.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
log(`failures: ${failures.length}${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`);
process.exit(failures.length ? 1 : 0);
