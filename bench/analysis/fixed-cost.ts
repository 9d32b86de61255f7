/**
 * The fixed cost of every recording, and the analysis' CPU per audio second on long speech, for this tree and a
 * base tree side by side (CPU seconds of the process tree from /proc, not wall time: the host may be loaded).
 *
 *   node --import tsx bench/analysis/fixed-cost.ts [--baseline ../main] [--rounds 5] [--shorts 12] [--long-seconds 240]
 *
 * - shorts: the first `--shorts` recordings of 4–8 s in ../shared/audio/asr. Each is transcribed by the service's
 *   pipeline (engines made once, as a running service keeps them; this tree only: the base's transcription is the
 *   same code) and analysed by the analysis process as the service runs it (one process per recording).
 * - long: the first `--long-seconds` of long/ (read speech), transcribed once, then analysed: the long-audio rate.
 * - fixed cost of a recording = its CPU (transcription + analysis) − the long-audio rates × its length.
 *
 * The trees run side by side, one child process per tree and round (`--one`), so both see the same host.
 * Figures are medians over the rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValue } from '../lib/args';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const modelsDir = process.env.TAKELINE_MODELS_DIR || path.join(sharedDir, 'models');
const cache = path.join(os.tmpdir(), 'takeline-bench-cache', 'fixed-cost');
const log = (s: string) => process.stdout.write(`${s}\n`);

interface Clip {
  file: string;
  seconds: number;
}

interface OneRun {
  /** Per short recording: analysis CPU-s (and transcription CPU-s where measured). */
  shorts: Array<{ file: string; seconds: number; analysis_cpu: number; transcription_cpu: number | null }>;
  long: { seconds: number; analysis_cpu: number; transcription_cpu: number | null };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function duration(file: string): number {
  const out = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return Number(out.stdout.trim());
}

function pickShorts(count: number): Clip[] {
  const dir = path.join(sharedDir, 'audio/asr');
  const clips: Clip[] = [];
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.flac')).sort()) {
    const seconds = duration(path.join(dir, name));
    if (seconds >= 4 && seconds <= 8) clips.push({ file: path.join(dir, name), seconds });
    if (clips.length >= count) break;
  }
  return clips;
}

function longExcerpt(seconds: number): Clip {
  fs.mkdirSync(cache, { recursive: true });
  const out = path.join(cache, `long-${seconds}.flac`);
  if (!fs.existsSync(out)) {
    const made = spawnSync('ffmpeg', ['-v', 'error', '-i', path.join(sharedDir, 'audio/long/read_speech_concat.flac'), '-t', String(seconds), '-ac', '1', '-ar', '16000', '-c:a', 'flac', '-y', out]);
    if (made.status !== 0) throw new Error(`ffmpeg: ${made.stderr}`);
  }
  return { file: out, seconds: duration(out) };
}

/** One tree, one round: in a child process started in that tree (imports resolve there). */
async function one(spec: { shorts: Clip[]; long: Clip; transcribe: boolean }): Promise<OneRun> {
  const { resolveMediaTools } = await import('../../src/service/media/tools');
  const { transcribeFile } = await import('../../src/service/speech/pipeline/transcribe');
  const { createPocketSphinxRecognizer } = await import('../../src/service/speech/recognition/pocketsphinx-recognizer');
  const { createServiceDiarizer } = await import('../../src/service/transcription/local-engine');
  const { createSileroVad } = await import('../../src/service/speech/vad/silero');
  const { runAnalysisProcess } = await import('../../src/service/analysis/analysis-job');
  const { analysisRequest } = await import('../lib/long-cache');
  const { treeCpuSeconds, liveChildrenCpuSeconds } = await import('../lib/proc-cpu');
  type Transcript = Awaited<ReturnType<typeof transcribeFile>>;

  const cpu = () => treeCpuSeconds() + liveChildrenCpuSeconds('pocketsphinx');
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer();
  const service = createServiceDiarizer();
  /** The transcript (cached by file, made here the first time) and, when asked, the CPU of making it now. */
  const transcript = async (file: string): Promise<{ t: Transcript; cpu: number | null }> => {
    const cached = path.join(cache, `${path.basename(file)}.json`);
    if (!spec.transcribe && fs.existsSync(cached)) return { t: JSON.parse(fs.readFileSync(cached, 'utf8')) as Transcript, cpu: null };
    const c0 = cpu();
    const t = await transcribeFile(file, { tools: resolveMediaTools(), vad, recognizer, diarizer: service.diarizer }, {});
    const used = cpu() - c0;
    fs.writeFileSync(cached, JSON.stringify(t));
    return { t, cpu: used };
  };
  const analyse = async (file: string, t: Transcript) => {
    const c0 = treeCpuSeconds();
    await runAnalysisProcess(analysisRequest(file, t, modelsDir), () => {}, new AbortController().signal);
    return treeCpuSeconds() - c0;
  };
  try {
    // Engines warm (the first recording of a running service pays their start once, not every recording).
    await transcript(spec.shorts[0]!.file);
    const shorts: OneRun['shorts'] = [];
    for (const clip of spec.shorts) {
      const { t, cpu: transcription } = await transcript(clip.file);
      shorts.push({ file: path.basename(clip.file), seconds: clip.seconds, analysis_cpu: await analyse(clip.file, t), transcription_cpu: transcription });
    }
    const { t, cpu: transcription } = await transcript(spec.long.file);
    return { shorts, long: { seconds: spec.long.seconds, analysis_cpu: await analyse(spec.long.file, t), transcription_cpu: transcription } };
  } finally {
    await recognizer.close();
    await vad.close();
    await service.close();
  }
}

function runTree(tree: string, spec: object): Promise<OneRun> {
  // The base tree gets this script beside its own (untracked there), so both run the same measurement.
  const script = path.join(tree, 'bench/analysis/fixed-cost.ts');
  if (path.resolve(tree) !== repoRoot) fs.copyFileSync(fileURLToPath(import.meta.url), script);
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--one', JSON.stringify(spec)], {
    cwd: tree,
    env: { ...process.env, TAKELINE_MODELS_DIR: modelsDir, TAKELINE_SHARED_DIR: sharedDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as OneRun) : reject(new Error(`${tree}: ${err.slice(-3000)}`)))),
  );
}

async function main(): Promise<void> {
  const oneSpec = flagValue('--one');
  if (oneSpec) {
    log(JSON.stringify(await one(JSON.parse(oneSpec) as { shorts: Clip[]; long: Clip; transcribe: boolean })));
    return;
  }
  const rounds = Number(flagValue('--rounds') ?? 5);
  const baseline = flagValue('--baseline');
  const shorts = pickShorts(Number(flagValue('--shorts') ?? 12));
  const long = longExcerpt(Number(flagValue('--long-seconds') ?? 240));
  const trees = [{ name: 'this tree', dir: repoRoot, transcribe: true }, ...(baseline ? [{ name: `base (${baseline})`, dir: path.resolve(baseline), transcribe: false }] : [])];
  log(`# fixed cost: ${shorts.length} recordings of ${shorts.map((c) => c.seconds.toFixed(1)).join(', ')} s; long: ${long.seconds.toFixed(1)} s; ${rounds} rounds; load ${os.loadavg()[0]!.toFixed(1)}`);
  const results = new Map<string, OneRun[]>(trees.map((t) => [t.name, []]));
  for (let r = 0; r < rounds; r++) {
    // The trees run at once, each in its own process tree: the figures are CPU seconds, which the other's load
    // hardly changes, and both see the same host. Transcription is measured in the first round, this tree only.
    const runs = await Promise.all(trees.map((tree) => runTree(tree.dir, { shorts, long, transcribe: tree.transcribe && r === 0 })));
    trees.forEach((tree, i) => {
      const run = runs[i]!;
      results.get(tree.name)!.push(run);
      const a = run.shorts.map((s) => s.analysis_cpu);
      log(`  round ${r + 1} ${tree.name}: short analysis CPU median ${median(a).toFixed(2)} s; long analysis ${run.long.analysis_cpu.toFixed(1)} CPU-s (${(run.long.analysis_cpu / long.seconds).toFixed(4)} per audio s); load ${os.loadavg()[0]!.toFixed(1)}`);
    });
  }
  // Transcription is measured in this tree only (the base runs the same transcription code).
  const mine = results.get(trees[0]!.name)!.filter((m) => m.long.transcription_cpu !== null);
  const transcriptionRate = median(mine.map((m) => m.long.transcription_cpu! / m.long.seconds));
  const transcriptionShort = median(mine.flatMap((m) => m.shorts.map((s) => s.transcription_cpu! - transcriptionRate * s.seconds)));
  log(`\ntranscription (this tree): long rate ${transcriptionRate.toFixed(4)} CPU-s per audio s; fixed cost per short recording ${transcriptionShort.toFixed(2)} CPU-s (median)`);
  log('\n| tree | analysis CPU per audio s, long | analysis CPU, short (median) | analysis fixed cost | transcription + analysis fixed cost |');
  log('|---|---|---|---|---|');
  const table: Record<string, unknown> = {};
  for (const tree of trees) {
    const runs = results.get(tree.name)!;
    const rate = median(runs.map((m) => m.long.analysis_cpu / m.long.seconds));
    const short = median(runs.flatMap((m) => m.shorts.map((s) => s.analysis_cpu)));
    const fixed = median(runs.flatMap((m) => m.shorts.map((s) => s.analysis_cpu - rate * s.seconds)));
    table[tree.name] = { rate, short, fixed, total_fixed: fixed + transcriptionShort, rates: runs.map((m) => +(m.long.analysis_cpu / m.long.seconds).toFixed(4)) };
    log(`| ${tree.name} | ${rate.toFixed(4)} (runs ${runs.map((m) => (m.long.analysis_cpu / m.long.seconds).toFixed(3)).join(', ')}) | ${short.toFixed(2)} | ${fixed.toFixed(2)} | ${(fixed + transcriptionShort).toFixed(2)} |`);
  }
  if (process.argv.includes('--json')) log(JSON.stringify(table));
}

await main();
