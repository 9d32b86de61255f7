/**
 * Reliability benchmark: the long tier of the fuzz, crash, load and soak tests.
 *
 *   npm run bench -- reliability
 *
 * 1. Fuzz: requests generated from the OpenAPI document (test/helpers/fuzz), RELIABILITY_FUZZ_RUNS per
 *    seed for each of RELIABILITY_FUZZ_SEEDS, with every answer checked (no 5xx, no leak, the prefix's error
 *    shape, a key everywhere but the open routes, nothing stored by a refusal).
 * 2. Kills: kill -9 at random points during upload streaming, transcription, analysis and revoice,
 *    RELIABILITY_KILLS of each, with the invariants checked after every restart and at the end; the
 *    recording is long/ (its first RELIABILITY_KILLS_RECORDING_SECONDS), long enough for 20 kills.
 *    RELIABILITY_KILL_KINDS=upload,transcription (or analysis,revoice) kills only those, e.g. to run two
 *    harnesses side by side.
 * 3. Load: 50 concurrent readers on the read routes for RELIABILITY_LOAD_SECONDS while long/ (14 min; its
 *    first RELIABILITY_LOAD_RECORDING_SECONDS) is transcribed; RELIABILITY_UPLOADS concurrent uploads, sha256-checked.
 * 4. Soak: RELIABILITY_CYCLES upload → transcribe → export → delete cycles; RSS, open fds, database size and
 *    data folder size at the baseline (after 10 warm-up cycles) and at the end.
 *
 * Defaults are the full tier (5000 × 2 fuzz requests, 20 kills per kind, 14 min, 20 uploads, 500 cycles).
 * On a shared machine run it reduced, e.g. RELIABILITY_FUZZ_RUNS=1500 RELIABILITY_KILLS=3 RELIABILITY_CYCLES=60
 * RELIABILITY_LOAD_RECORDING_SECONDS=240 RELIABILITY_LOAD_SECONDS=20 RELIABILITY_KILLS_RECORDING_SECONDS=120.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { startServiceProcess } from '../../test/helpers/service';
import { audioDir } from '../../test/helpers/paths';
import { runFuzz, seedFixtures } from '../../test/helpers/fuzz/run-fuzz';
import { openApiDocument } from '../../src/service/openapi/document';
import { killHarness } from './kills';
import { loadBench } from './load';
import { soakBench } from './soak';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const FUZZ_RUNS = env('RELIABILITY_FUZZ_RUNS', 5000);
const FUZZ_SEEDS = (process.env.RELIABILITY_FUZZ_SEEDS ?? '101,102').split(',').map(Number);
const KILLS = env('RELIABILITY_KILLS', 20);
const LOAD_SECONDS = env('RELIABILITY_LOAD_SECONDS', 60);
const LOAD_RECORDING_SECONDS = env('RELIABILITY_LOAD_RECORDING_SECONDS', 0);
const KILLS_RECORDING_SECONDS = env('RELIABILITY_KILLS_RECORDING_SECONDS', 0);
const UPLOADS = env('RELIABILITY_UPLOADS', 20);
const CYCLES = env('RELIABILITY_CYCLES', 500);
const only = (process.env.RELIABILITY_ONLY ?? 'fuzz,kills,load,soak').split(',');

const log = (line: string) => process.stdout.write(`${line}\n`);
// Every service's data folder goes into one temporary folder (test/helpers/temp.ts), removed at the end.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-bench-reliability-'));
process.env.TAKELINE_TEST_TMP = scratch;
const failures: string[] = [];
const summary: Record<string, unknown> = {};

async function fuzz() {
  const svc = await startServiceProcess({ env: { TAKELINE_MODELS_DIR: '', TAKELINE_WHISPER_BASE_URL: 'http://127.0.0.1:9' } });
  try {
    const fixtures = await seedFixtures(svc.url, svc.key);
    let tried = 0;
    let checked = 0;
    for (const seed of FUZZ_SEEDS) {
      const report = await runFuzz({ url: svc.url, dataDir: svc.dataDir, doc: openApiDocument() as never, fixtures, seed, runs: FUZZ_RUNS });
      tried += report.tried;
      checked += report.unchangedChecked;
      log(`  fuzz seed ${seed}: ${report.tried} requests, ${report.failures.length} failures, statuses ${JSON.stringify(report.byStatus)}`);
      for (const f of report.failures.slice(0, 10)) failures.push(`fuzz: ${f.request.method} ${f.request.path.slice(0, 120)} → ${f.status}: ${f.problems.join('; ')}`);
    }
    const leftover = fs.readdirSync(path.join(svc.dataDir, 'uploads'));
    if (leftover.length) failures.push(`fuzz: ${leftover.length} temporary uploads left`);
    summary.fuzz = { requests: tried, refusals_checked_unchanged: checked };
  } finally {
    await svc.stop();
  }
}

/** long/ (13.8 min), or its first `seconds` when > 0. */
function longRecording(seconds: number): string {
  const whole = path.join(audioDir, 'long', 'read_speech_concat.flac');
  if (seconds <= 0) return whole;
  const cut = path.join(scratch, `long-${seconds}.flac`);
  if (!fs.existsSync(cut)) spawnSync('ffmpeg', ['-v', 'error', '-i', whole, '-t', String(seconds), '-c:a', 'flac', cut]);
  return cut;
}

async function kills() {
  const rng = fc.sample(fc.double({ min: 0, max: 1, noNaN: true }), { seed: 13, numRuns: 10_000 });
  let i = 0;
  // The transcription must outlast the kills: each lands after a new checkpoint (a chunk of ~10–30 s).
  const kinds = process.env.RELIABILITY_KILL_KINDS?.split(',');
  const report = await killHarness({ killsPerKind: KILLS, speechFile: longRecording(KILLS_RECORDING_SECONDS), log, random: () => rng[i++ % rng.length]!, kinds });
  failures.push(...report.failures.map((f) => `kills: ${f}`));
  summary.kills = { survived: report.kills, bytes_verified: report.bytesVerified };
  log(`  kills: ${JSON.stringify(report.kills)}, ${report.bytesVerified} bytes verified, ${report.failures.length} failures`);
}

async function load() {
  const recording = longRecording(LOAD_RECORDING_SECONDS);
  const report = await loadBench({ recording, seconds: LOAD_SECONDS, uploads: UPLOADS, log });
  failures.push(...report.failures.map((f) => `load: ${f}`));
  summary.load = report;
  log(`  load: ${JSON.stringify(report.readers)}; pollers (If-None-Match): ${JSON.stringify(report.pollers)}; uploads ${report.uploads.intact}/${report.uploads.count} intact (${report.uploads.bytes} bytes, ${report.uploads.seconds.toFixed(1)} s)`);
}

async function soak() {
  const report = await soakBench({ cycles: CYCLES, warmup: 10, log });
  failures.push(...report.failures.map((f) => `soak: ${f}`));
  const drift = Object.fromEntries(Object.keys(report.end).map((k) => [k, (report.end as never as Record<string, number>)[k]! - (report.baseline as never as Record<string, number>)[k]!]));
  summary.soak = { ...report, drift };
  log(`  soak: ${report.cycles} cycles in ${report.seconds.toFixed(0)} s; baseline ${JSON.stringify(report.baseline)}, end ${JSON.stringify(report.end)}, drift ${JSON.stringify(drift)}`);
}

const started = Date.now();
log(`reliability: fuzz ${FUZZ_RUNS}×${FUZZ_SEEDS.length}, ${KILLS} kills per kind, load ${LOAD_SECONDS} s, ${UPLOADS} uploads, ${CYCLES} soak cycles (load average ${os.loadavg()[0]!.toFixed(1)})`);
for (const [name, part] of [['fuzz', fuzz], ['kills', kills], ['load', load], ['soak', soak]] as const) {
  if (!only.includes(name)) continue;
  const t = Date.now();
  try {
    await part();
  } catch (error) {
    failures.push(`${name}: ${(error as Error).stack ?? error}`);
  }
  log(`  (${name}: ${((Date.now() - t) / 1000).toFixed(0)} s)`);
}
log(`\nreliability summary (${((Date.now() - started) / 1000).toFixed(0)} s): ${JSON.stringify(summary)}`);
log(`failures: ${failures.length}${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`);
fs.rmSync(scratch, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);
