/**
 * ASR word error rate on ../shared/audio/asr (121 read-speech files), PocketSphinx as Takeline runs it
 * (Silero VAD → merged speech chunks → pooled long-lived pocketsphinx_batch with tuned flags) side by side
 * with the untuned `pocketsphinx_continuous -infile <wav>` on the same files.
 *
 *   nice -n 10 node --import tsx bench/asr/run.ts [--half tune|test] [--set amateur,cmu] [--every 3] [--no-baseline]
 *       [--mode vad|whole|pipeline] [--args "-lw 8 -wip 0.2"] [--merge-gap 0.6] [--max-chunk 20] [--workers 2] [--verbose]
 *
 * Every file belongs to the tuning or the test half (bench/lib/halves.ts); figures are printed per source
 * and half, side by side with the untuned program. --half keeps one half (tuning runs: `--half tune`);
 * --every N keeps every Nth file of each source and half (quick runs); --args adds decoder flags over the
 * tuned defaults; --mode whole decodes each file as one chunk (no VAD).
 *
 * --mode pipeline runs each file through the whole transcription pipeline, as `POST /v1/audio/transcriptions`
 * does (transcribeFile: ffmpeg decode of the original file → Silero VAD → the decoder pool → the service's
 * diarizer), one file at a time, and the untuned program one file at a time too (a user running
 * `pocketsphinx_continuous -infile x.wav` on each): both systems' wall and CPU time are printed with their
 * ratio (target: pipeline ≤ 0.6 × the program's wall time, RTF ≤ 0.25) beside the WER per half, in one run.
 * (The program is given the WAV it needs; its conversion is not counted, the pipeline's decode is.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createServiceDiarizer } from '../../src/service/transcription/local-engine';
import { childrenCpuSeconds, liveChildrenCpuSeconds, treeCpuSeconds } from '../lib/proc-cpu';
import { resolveMediaTools } from '../../src/service/media/tools';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { SAMPLE_RATE, type Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { wavFile } from '../lib/wav';
import { mapLimit } from '../lib/map-limit';
import { halves, type Half } from '../lib/halves';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const asrDir = path.join(sharedDir, 'audio/asr');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const sets = flag('--set')?.split(',');
const onlyHalf = flag('--half') as Half | undefined;
const every = Number(flag('--every') ?? 1);
const mode = flag('--mode') ?? 'vad';
const runBaseline = !process.argv.includes('--no-baseline');
const verbose = process.argv.includes('--verbose');
const mergeGap = Number(flag('--merge-gap') ?? 0.6);
const maxChunk = Number(flag('--max-chunk') ?? 20);
const workers = Number(flag('--workers') ?? 2);
const extraArgs: Record<string, string> = {};
{
  const parts = (flag('--args') ?? '').split(/\s+/).filter(Boolean);
  for (let i = 0; i + 1 < parts.length; i += 2) extraArgs[parts[i]!] = parts[i + 1]!;
}

interface Item {
  file: string;
  set: string;
  half: Half;
  duration: number;
  reference: string;
}

function loadItems(): Item[] {
  const lines = readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const half = halves(lines.map((l) => l.split('\t')[0]!));
  const bySet = new Map<string, Item[]>();
  const seen = new Set<string>();
  for (const line of lines) {
    const [file, duration, reference] = line.split('\t') as [string, string, string];
    // refs.tsv lists jfk twice; each file is scored once.
    if (seen.has(file)) continue;
    seen.add(file);
    const set = file.split('_')[0]!;
    if (sets && !sets.includes(set)) continue;
    if (onlyHalf && half.get(file) !== onlyHalf) continue;
    const key = `${set} ${half.get(file)}`;
    if (!bySet.has(key)) bySet.set(key, []);
    bySet.get(key)!.push({ file, set, half: half.get(file)!, duration: Number(duration), reference });
  }
  return [...bySet.values()].flatMap((items) => items.filter((_, i) => i % every === 0));
}

function wav16(pcm: Float32Array): Buffer {
  return wavFile(float32ToInt16Le(pcm), SAMPLE_RATE, 'int16');
}

const pipelineMode = mode === 'pipeline';
// In pipeline mode the program runs one file at a time, as the pipeline handles one request at a time.
const baselineJobs = pipelineMode ? 1 : 2;

/** The reference program exactly as a user would first run it: defaults, whole file. */
function runContinuous(wavPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pocketsphinx_continuous', ['-infile', wavPath, '-logfn', '/dev/null'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(
            out
              .split('\n')
              .map((l) => l.trim())
              .filter(Boolean)
              .join(' '),
          )
        : reject(new Error(`exit ${code}`)),
    );
  });
}

/** Speech spans merged across short pauses, capped in length, as the transcription pipeline does. */
function mergeSpans(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start - last.end <= mergeGap && s.end - last.start <= maxChunk) last.end = s.end;
    else out.push({ ...s });
  }
  return out;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const items = loadItems();
  const tools = resolveMediaTools();
  const audio = await mapLimit(items, 2, (it) => decodeAudioToArray(path.join(asrDir, it.file), tools));
  const totalSeconds = audio.reduce((a, p) => a + p.length / SAMPLE_RATE, 0);
  console.log(
    `${items.length} files, ${(totalSeconds / 60).toFixed(1)} min; mode ${mode}; extra args ${JSON.stringify(extraArgs)}`,
  );

  let baseline: WerResult[] | null = null;
  let baselineWall = 0;
  let baselineCpu = 0;
  if (runBaseline) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-asr-bench-'));
    try {
      items.forEach((_, i) => writeFileSync(path.join(tmp, `${i}.wav`), wav16(audio[i]!)));
      const cpu0 = childrenCpuSeconds();
      const t0 = Date.now();
      baseline = await mapLimit(items, baselineJobs, async (it, i) =>
        wordErrorRate(it.reference, await runContinuous(path.join(tmp, `${i}.wav`))),
      );
      baselineWall = (Date.now() - t0) / 1000;
      baselineCpu = childrenCpuSeconds() - cpu0;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    console.log(
      `baseline: ${baselineWall.toFixed(1)} s wall, ${baselineCpu.toFixed(1)} CPU s, ${baselineJobs} at a time (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
  }

  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer({ decoderArgs: extraArgs, workers });
  if (pipelineMode) {
    // Warm, as in the service: the decoders start and the VAD loads before the first request is timed.
    await recognizer.recognize(audio[0]!.subarray(0, SAMPLE_RATE));
    await vad.detect(audio[0]!.subarray(0, SAMPLE_RATE));
  }
  const service = pipelineMode ? createServiceDiarizer() : null;
  const tree0 = treeCpuSeconds() + liveChildrenCpuSeconds('pocketsphinx');
  const t0 = Date.now();
  let chunks = 0;
  const ours = await mapLimit(items, pipelineMode ? 1 : workers, async (it, i) => {
    if (pipelineMode) {
      const transcript = await transcribeFile(path.join(asrDir, it.file), {
        tools,
        vad,
        recognizer,
        diarizer: service!.diarizer,
        concurrency: workers,
      }, { chunks: { maxChunkSeconds: maxChunk, mergeGapSeconds: mergeGap } });
      const r = wordErrorRate(it.reference, transcript.text);
      if (verbose) console.log(`${pct(r.wer).padStart(6)} ${it.file}\n   ref: ${it.reference}\n   hyp: ${transcript.text}`);
      return r;
    }
    const pcm = audio[i]!;
    const spans =
      mode === 'whole' ? [{ start: 0, end: pcm.length / SAMPLE_RATE }] : mergeSpans(await vad.detect(pcm));
    chunks += spans.length;
    const texts = await Promise.all(
      spans.map(async (s) => {
        const a = Math.max(0, Math.round(s.start * SAMPLE_RATE));
        const b = Math.min(pcm.length, Math.round(s.end * SAMPLE_RATE));
        const segments = await recognizer.recognize(pcm.subarray(a, b), { offset: s.start });
        return segments.map((seg) => seg.text).join(' ');
      }),
    );
    const hyp = texts.join(' ');
    const r = wordErrorRate(it.reference, hyp);
    if (verbose) console.log(`${pct(r.wer).padStart(6)} ${it.file}\n   ref: ${it.reference}\n   hyp: ${hyp}`);
    return r;
  });
  const elapsed = (Date.now() - t0) / 1000;
  const ourCpu = treeCpuSeconds() + liveChildrenCpuSeconds('pocketsphinx') - tree0;
  await recognizer.close();
  await vad.close();
  await service?.close();
  if (pipelineMode) {
    console.log(
      `pipeline: ${elapsed.toFixed(1)} s wall (RTF ${(elapsed / totalSeconds).toFixed(3)}), ${ourCpu.toFixed(1)} CPU s ` +
        `(${(ourCpu / totalSeconds).toFixed(3)} per audio s), ${workers} decoders, one file at a time (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    if (baseline) {
      console.log(
        `program: ${(baselineCpu / totalSeconds).toFixed(3)} CPU s per audio s; pipeline / program: wall ${(elapsed / baselineWall).toFixed(3)} ` +
          `(target ≤ 0.6), CPU ${(ourCpu / baselineCpu).toFixed(3)}`,
      );
    }
  } else {
    console.log(
      `ours: ${elapsed.toFixed(1)} s wall (${(elapsed / totalSeconds).toFixed(3)} × real time, ${workers} workers), ${chunks} chunks`,
    );
  }

  const setNames = [...new Set(items.map((it) => it.set))];
  const rows: string[][] = [
    ['set', 'half', 'files', 'words', 'continuous WER', 'ours WER', 'ours S/D/I', 'relative'],
  ];
  const row = (name: string, half: string, idx: number[]) => {
    if (idx.length === 0) return;
    const o = sumWer(idx.map((i) => ours[i]!));
    const b = baseline ? sumWer(idx.map((i) => baseline![i]!)) : null;
    rows.push([
      name,
      half,
      String(idx.length),
      String(o.referenceWords),
      b ? pct(b.wer) : '-',
      pct(o.wer),
      `${o.substitutions}/${o.deletions}/${o.insertions}`,
      b && b.wer > 0 ? `${((o.wer / b.wer - 1) * 100).toFixed(0)}%` : '-',
    ]);
  };
  const where = (keep: (it: Item) => boolean) => items.flatMap((it, i) => (keep(it) ? [i] : []));
  for (const set of setNames) {
    for (const half of ['tune', 'test'] as const) row(set, half, where((it) => it.set === set && it.half === half));
  }
  for (const half of ['tune', 'test'] as const) row('ALL', half, where((it) => it.half === half));
  row('ALL', 'both', where(() => true));
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows)
    console.log(
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
