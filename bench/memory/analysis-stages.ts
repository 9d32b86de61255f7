/**
 * Where the analysis' memory goes: runs the analysis (createToolkit + runAnalysis, what the analysis process
 * runs) in a process started with the analysis process's environment (ANALYSIS_PROCESS_ENV: glibc's heap
 * settings; `--malloc-default` leaves them out, as before) on long/ or long/ looped to `--minutes N` (its
 * transcript tiled over it), and prints
 * for each stage the process's peak RSS within it (sampled every 50 ms), and RSS, heap and array buffers at
 * its end (after a GC); the whole run's peak is the kernel's VmHWM, which the sampler can miss. Writes the document's parts and lines as JSON
 * (`--out FILE`) so two trees' results can be compared (compare-results.ts).
 *
 *   node --import tsx bench/memory/analysis-stages.ts [--minutes 60] [--malloc-default] [--trace] [--out /tmp/x.json]
 */
import { spawnSync } from 'node:child_process';
import { ANALYSIS_PROCESS_ENV } from '../../src/service/analysis/analysis-job';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAnalysis } from '../../src/service/analysis/run-analysis';
import { createToolkit } from '../../src/service/analysis/toolkit';
import type { AnalysisMessage } from '../../src/service/analysis/protocol';
import { tileTranscript } from '../studio/tile-transcript';
import { analysisRequest, cachedTranscript, loopTo } from '../lib/long-cache';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const modelsDir = process.env.TAKELINE_MODELS_DIR || path.join(sharedDir, 'models');
const longFile = path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const log = (s: string) => process.stdout.write(`${s}\n`);

// Glibc reads its settings at start: the measuring runs in a child started with them (and --expose-gc).
if (!process.env.TAKELINE_BENCH_STAGES_CHILD) {
  const env = { ...process.env, TAKELINE_BENCH_STAGES_CHILD: '1', ...(process.argv.includes('--malloc-default') ? {} : ANALYSIS_PROCESS_ENV) };
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { env, stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);


const piece = await cachedTranscript(longFile, log);
const minutes = arg('--minutes');
const seconds = minutes ? Number(minutes) * 60 : null;
const file = seconds ? loopTo(longFile, seconds) : longFile;
const transcript = seconds ? tileTranscript(piece, seconds) : piece;
const request = analysisRequest(file, transcript, modelsDir);
const trace = process.argv.includes('--trace');
const gc = (globalThis as { gc?: () => void }).gc;
const heapEnv = Object.keys(ANALYSIS_PROCESS_ENV).map((k) => `${k}=${process.env[k] ?? '(default)'}`).join(' ');
log(`${path.basename(file)}: ${transcript.duration.toFixed(1)} s, ${request.lines.length} lines; ${heapEnv}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; gc ${gc ? 'exposed' : 'not exposed'}`);

interface StageFigures { peak_rss: number; end_rss: number; end_heap: number; end_array_buffers: number; seconds: number }
const stages = new Map<string, StageFigures>();
let current = 'start';
let peak = process.memoryUsage.rss();
let overall = peak;
let mark = performance.now();
const sampler = setInterval(() => {
  const rss = process.memoryUsage.rss();
  peak = Math.max(peak, rss);
  overall = Math.max(overall, rss);
}, 50);
const close = (name: string) => {
  const rss = process.memoryUsage.rss();
  peak = Math.max(peak, rss);
  gc?.();
  const u = process.memoryUsage();
  stages.set(name, { peak_rss: Math.max(peak, stages.get(name)?.peak_rss ?? 0), end_rss: u.rss, end_heap: u.heapUsed, end_array_buffers: u.arrayBuffers, seconds: (stages.get(name)?.seconds ?? 0) + (performance.now() - mark) / 1000 });
  peak = process.memoryUsage.rss();
  mark = performance.now();
};
const parts: Record<string, unknown> = {};
const lines = new Map<number, unknown>();
const emit = (m: AnalysisMessage) => {
  if (m.type === 'stage' && m.stage !== current) {
    close(current);
    current = m.stage;
  }
  if (m.type === 'part') parts[m.name] = m.value;
  if (m.type === 'lines') for (const l of m.lines) lines.set(l.id, l);
  if (m.type === 'lines' && trace && current === 'quality')
    for (const l of m.lines) log(`  line ${l.id} ${(l.end - l.start).toFixed(1)} s: RSS ${mb(process.memoryUsage.rss())} MB (peak so far ${mb(peak)})`);
  if (m.type === 'failed') throw new Error(m.message);
};
const kit = createToolkit(request);
const t0 = performance.now();
try {
  await runAnalysis(request, kit, emit);
} finally {
  await kit.close();
}
close(current);
clearInterval(sampler);
const wall = (performance.now() - t0) / 1000;
log('stage        peak RSS  end RSS  end heap  end arrayBuffers  (MB)  seconds');
for (const [name, s] of stages)
  log(`${name.padEnd(12)} ${String(mb(s.peak_rss)).padStart(8)} ${String(mb(s.end_rss)).padStart(8)} ${String(mb(s.end_heap)).padStart(9)} ${String(mb(s.end_array_buffers)).padStart(17)}  ${s.seconds.toFixed(1).padStart(12)}`);
// The kernel's high-water mark: the sampler above misses peaks shorter than its period (a model run's activations).
const hwm = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
log(`peak RSS of the analysis: ${mb(hwm)} MB (VmHWM; sampled every 50 ms: ${mb(overall)} MB); wall ${wall.toFixed(1)} s; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const out = arg('--out');
if (out) fs.writeFileSync(out, JSON.stringify({ parts, lines: [...lines.values()] }));
