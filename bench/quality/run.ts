/**
 * Cost of the quality analysis on a long recording: the measured per-line quality, the recording's
 * conditions and DNSMOS, each timed (wall clock and this process's CPU seconds) and as real-time factors.
 *
 *   nice -n 10 node --import tsx bench/quality/run.ts [--file <audio>] [--lines <segments.tsv>]
 *       [--dnsmos budget,threads=1,batch=4 …] [--reference] [--agreement 30]
 *
 * Defaults: ../shared/audio/long/read_speech_concat.flac (13.8 min) with its 121 reference segments as the
 * lines; speech spans from Silero VAD (timed apart: the analysis gets them from transcription); DNSMOS with
 * the budget windowing at 1 thread, at 2 threads, and at 2 threads with windows batched 4 per run. Each
 * DNSMOS configuration runs in its own child process, so its peak memory is its own.
 * --reference also runs DNSMOS with the reference's windowing (slow: ~5× the windows).
 * --agreement N scores the first N lines both ways and prints the differences.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { detectConditions } from '../../src/service/speech/quality/conditions';
import { createDnsmos, type DnsmosOptions } from '../../src/service/speech/quality/dnsmos';
import { measureLine } from '../../src/service/speech/quality/line-quality';
import { noiseProfile } from '../../src/service/speech/quality/noise-profile';
import { clip } from '../../src/service/speech/quality/spans';
import type { Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { treeCpuSeconds } from '../lib/proc-cpu';
import { flagValue as flag } from '../lib/args';

const RATE = 16_000;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const modelsDir = process.env.TAKELINE_MODELS_DIR || path.join(sharedDir, 'models');

const file = flag('--file') ?? path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const linesFile =
  flag('--lines') ??
  (flag('--file') ? undefined : path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv'));
const agreement = Number(flag('--agreement') ?? 0);

function dnsmosConfigs(specs: string[]): { label: string; options: DnsmosOptions }[] {
  return specs.map((spec) => {
    const [windowing, ...rest] = spec.split(',');
    const kv = Object.fromEntries(rest.map((p) => p.split('=') as [string, string]));
    return {
      label: spec,
      options: {
        windowing: windowing as DnsmosOptions['windowing'],
        threads: Number(kv.threads ?? 1),
        batch: Number(kv.batch ?? 1),
      },
    };
  });
}

function countBy(values: string[]): Record<string, number> {
  return values.reduce<Record<string, number>>((m, v) => ({ ...m, [v]: (m[v] ?? 0) + 1 }), {});
}

async function timed<T>(label: string, audioSeconds: number, work: () => Promise<T> | T): Promise<T> {
  const cpu0 = treeCpuSeconds();
  const t0 = performance.now();
  const result = await work();
  const wall = (performance.now() - t0) / 1000;
  const cpu = treeCpuSeconds() - cpu0;
  console.log(
    `${label.padEnd(44)} wall ${wall.toFixed(2).padStart(7)} s  cpu ${cpu.toFixed(2).padStart(7)} s  RTF wall ${(wall / audioSeconds).toFixed(4)}  cpu-s per audio-s ${(cpu / audioSeconds).toFixed(4)}  rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
  );
  return result;
}

const pcm = await decodeAudioToArray(file, resolveMediaTools());
const seconds = pcm.length / RATE;
let lines: Span[];
if (linesFile) {
  lines = readFileSync(linesFile, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => row.split('\t'))
    .map(([start, end]) => ({ start: Number(start), end: Number(end) }));
} else {
  lines = Array.from({ length: Math.ceil(seconds / 7) }, (_, i) => ({
    start: i * 7,
    end: Math.min(seconds, (i + 1) * 7),
  }));
}
const lineSeconds = lines.reduce((s, l) => s + l.end - l.start, 0);
console.log(
  `${path.basename(file)}: ${seconds.toFixed(1)} s, ${lines.length} lines (mean ${(lineSeconds / lines.length).toFixed(1)} s); ` +
    `${os.availableParallelism()} cores (shared: load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
);

const child = flag('--dnsmos-child');
const clips = lines.map((l) => pcm.subarray(Math.round(l.start * RATE), Math.round(l.end * RATE)));

if (child) {
  // One DNSMOS configuration, alone in this process: its timing and its own peak memory.
  const { label, options } = dnsmosConfigs([child])[0]!;
  const engine = createDnsmos(modelsDir, options);
  await engine.score(clips[0]!); // load and warm up outside the timing
  const windows = clips.reduce((s, c) => s + engine.windowsFor(c.length), 0);
  const scores = await timed(`DNSMOS ${label} (${windows} windows)`, seconds, () => engine.scoreMany(clips));
  const mean = scores.reduce((s, m) => s + m.ovrl, 0) / scores.length;
  console.log(
    `  ${(windows / lines.length).toFixed(2)} windows per line; mean OVRL ${mean.toFixed(3)}; peak RSS of this process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
  await engine.close();
  process.exit(0);
}

const vad = createSileroVad();
const speech = await timed('Silero VAD (given by transcription)', seconds, () => vad.detect(pcm));
await vad.close();

const noise = await timed('noiseProfile', seconds, () => noiseProfile(pcm, RATE, speech));
const measures = await timed(`measureLine × ${lines.length}`, seconds, () =>
  lines.map((line) => measureLine(pcm, RATE, line, clip(speech, line), noise)),
);
const conditions = await timed('detectConditions (measures given)', seconds, () =>
  detectConditions(pcm, RATE, speech, lines, { noise, measures }),
);
console.log(
  `  noise floor ${noise.noise_db?.toFixed(1)} dBFS (${noise.method}); ${lines.length} lines, mic ${JSON.stringify(countBy(measures.map((m) => m.mic)))}`,
);
for (const c of conditions) console.log(`  condition ${c.type}: ${c.evidence}`);
console.log(`  peak RSS so far ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

const asked = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--dnsmos' ? [a] : []));
const specs = asked.length
  ? asked
  : ['budget,threads=1,batch=1', 'budget,threads=2,batch=1', 'budget,threads=2,batch=4'];
if (process.argv.includes('--reference')) specs.push('reference,threads=1,batch=1');
const passThrough = ['--file', '--lines'].flatMap((f) => (flag(f) ? [f, flag(f)!] : []));
for (const spec of specs) {
  spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), ...passThrough, '--dnsmos-child', spec],
    { stdio: 'inherit' },
  );
}

if (agreement > 0) {
  const budget = createDnsmos(modelsDir, { windowing: 'budget' });
  const reference = createDnsmos(modelsDir, { windowing: 'reference' });
  const subset = clips.slice(0, agreement);
  const a = await budget.scoreMany(subset);
  const b = await reference.scoreMany(subset);
  for (const key of ['sig', 'bak', 'ovrl', 'p808'] as const) {
    const d = a.map((m, i) => Math.abs(m[key] - b[i]![key])).sort((x, y) => x - y);
    console.log(
      `budget vs reference windowing, ${subset.length} lines, ${key}: median |Δ| ${d[d.length >> 1]!.toFixed(3)}, max ${d.at(-1)!.toFixed(3)}`,
    );
  }
  await budget.close();
  await reference.close();
}
