/**
 * ASR word error rate on ../shared/audio/asr (121 read-speech files), PocketSphinx as Takeline runs it
 * (Silero VAD → merged speech chunks → pooled long-lived pocketsphinx_batch with tuned flags) side by side
 * with the untuned `pocketsphinx_continuous -infile <wav>` on the same files.
 *
 *   nice -n 10 node --import tsx bench/asr/run.ts [--half tune|test] [--set amateur,cmu] [--every 3] [--no-baseline]
 *       [--mode vad|whole|pipeline [--timeline]] [--args "-lw 8 -wip 0.2"] [--merge-gap 0.6] [--max-chunk 20] [--workers 2] [--verbose]
 *       [--no-variants] [--gain-db -30] [--no-levelling] [--noise ambience-pub.flac --snr 10] [--room ir_classroom_mono.flac]
 *       [--rt60 0.6 --drr 0] [--telephone] [--codec mp3:32] [--denoise auto|auto:25|on|off] [--dereverb auto|auto:-15|on|off [--wpe-taps 20] [--wpe-iterations 1]]
 *
 * Every file belongs to the tuning or the test half (bench/lib/halves.ts); figures are printed per source
 * and half, side by side with the untuned program. --half keeps one half (tuning runs: `--half tune`);
 * --every N keeps every Nth file of each source and half (quick runs); --args adds decoder flags over the
 * tuned defaults; --mode whole decodes each file as one chunk (no VAD); --no-variants decodes without the
 * function words' British forms and devoiced pronunciations (the model's own dictionary).
 * --gain-db scales every file's audio (the program's WAVs too) to show how both cope with quieter or louder
 * recordings, and --no-levelling gives our
 * VAD and decoders the audio at its own level instead of levelled as the pipeline levels it (vad and whole modes;
 * the program always gets the file as it is). --room and --noise/--snr put every file in a measured room and/or
 * under recorded background noise (bench/lib/degrade.ts; the program gets the same audio), to see whether the
 * gain over the program holds on recordings unlike the public ones (vad and whole modes); --rt60/--drr puts them in
 * a constructed room instead (a decaying noise tail, seeded); --telephone band-limits them to a telephone line's
 * 300–3400 Hz; --codec stores them last in a lossy format (mp3, aac or opus at that many kb/s) and decodes them again. --denoise and --dereverb choose which chunks are
 * denoised and dereverberated before recognition: auto as the service (auto:N with another threshold), on every
 * chunk, off none; --wpe-taps sets the dereverberation filter's length and --wpe-iterations its passes (vad and whole modes).
 *
 * --mode pipeline runs each file through the whole transcription pipeline, as `POST /v1/audio/transcriptions`
 * does (transcribeFile: ffmpeg decode of the original file → Silero VAD → the decoder pool → the service's
 * diarizer), one file at a time, and the untuned program on the same file right before or after it (a user
 * running `pocketsphinx_continuous -infile x.wav` on each; the order alternates file by file so a changing
 * load weighs on both alike, and the program runs at our decoders' niceness): both systems' wall and CPU time
 * are printed with their ratio (target: pipeline ≤ 0.6 × the program's wall time, RTF ≤ 0.25) beside the WER
 * per half, in one run, with where each request's wall time went (bench/lib/stage-timeline.ts: the mean row;
 * `--timeline` one row per file). (The program is given the WAV it needs; its conversion is not counted, the
 * pipeline's decode is.)
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
import { backgroundNiceness, backgroundNiceSteps, lowerProcessPriority } from '../../src/service/jobs/background-priority';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { errorCount, sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { SAMPLE_RATE, type Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { levelledRecording } from '../../src/service/speech/pipeline/levelled-blocks';
import { wavFile } from '../lib/wav';
import { relativeChangeInterval } from '../lib/bootstrap';
import { mapLimit } from '../lib/map-limit';
import { halves, type Half } from '../lib/halves';
import { formatStages, StageTimeline, summarize, type StageSummary } from '../lib/stage-timeline';
import { parseDecoderFlags } from '../lib/decoder-flags';
import { degradationFromArgs, degraded, describeDegradation } from '../lib/degrade';
import { createRnnoiseDenoiser } from '../../src/service/speech/enhancement/rnnoise';
import { denoisedIfNoisy, speechWithin } from '../../src/service/speech/enhancement/noisy-speech';
import { dereverberate } from '../../src/service/speech/enhancement/wpe';
import { createWpeDereverberator, REVERBERANT_ABOVE_DB } from '../../src/service/speech/enhancement/reverberant-speech';
import { flagValue as flag } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const asrDir = path.join(sharedDir, 'audio/asr');

const sets = flag('--set')?.split(',');
const onlyHalf = flag('--half') as Half | undefined;
const every = Number(flag('--every') ?? 1);
const mode = flag('--mode') ?? 'vad';
const runBaseline = !process.argv.includes('--no-baseline');
const verbose = process.argv.includes('--verbose');
const pronunciationVariants = !process.argv.includes('--no-variants');
// Pipeline mode: one row of stage times per file (bench/lib/stage-timeline.ts); the mean row is always printed.
const timelineRows = process.argv.includes('--timeline');
const mergeGap = Number(flag('--merge-gap') ?? 0.6);
const maxChunk = Number(flag('--max-chunk') ?? 20);
const workers = Number(flag('--workers') ?? 2);
const extraArgs = parseDecoderFlags(flag('--args'));
const gainDb = Number(flag('--gain-db') ?? 0);
const levelling = !process.argv.includes('--no-levelling');
// auto: as the pipeline, chunks whose speech is under 25 dB SNR are denoised (auto:N under N dB); on: every chunk;
// off: none (vad and whole modes).
const denoiseFlag = flag('--denoise') ?? 'auto';
// auto: as the pipeline, chunks whose first WPE iteration removes at least -15 dB are dereverberated (auto:N: N dB).
const dereverbFlag = flag('--dereverb') ?? 'auto';
const dereverbAboveDb = dereverbFlag === 'auto' ? REVERBERANT_ABOVE_DB : dereverbFlag.startsWith('auto:') ? Number(dereverbFlag.slice(5)) : undefined;
if (!['auto', 'on', 'off'].includes(dereverbFlag.replace(/^auto:.*/, 'auto')) || Number.isNaN(dereverbAboveDb)) throw new Error('--dereverb is auto, auto:<dB>, on or off');
// Unset: WPE's own defaults, as the service runs it.
const dereverbTaps = flag('--wpe-taps') === undefined ? undefined : Number(flag('--wpe-taps'));
const dereverbIterations = flag('--wpe-iterations') === undefined ? undefined : Number(flag('--wpe-iterations'));
const denoise = denoiseFlag.startsWith('auto') ? 'auto' : (denoiseFlag as 'on' | 'off');
const denoiseBelowDb = denoiseFlag.startsWith('auto:') ? Number(denoiseFlag.slice(5)) : undefined;
if (!['auto', 'on', 'off'].includes(denoise) || Number.isNaN(denoiseBelowDb)) throw new Error('--denoise is auto, auto:<dB>, on or off');
const degradation = degradationFromArgs(process.argv);
const degrading = degradation !== undefined;
const customDereverb = dereverbFlag === 'on' || dereverbFlag.startsWith('auto:') || flag('--wpe-taps') !== undefined || flag('--wpe-iterations') !== undefined;
if ((gainDb !== 0 || !levelling || degrading || denoiseFlag === 'on' || denoiseBelowDb !== undefined || customDereverb) && mode === 'pipeline') {
  throw new Error('--gain-db, --no-levelling, --noise, --room, --rt60, --telephone, --codec, --denoise on and auto:N, --dereverb on and auto:N, --wpe-taps and --wpe-iterations are for the vad and whole modes');
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
// The recognition work's target: at least 20 % fewer errors than the untuned program, on the test half and on unseen audio.
const WER_TARGET = -0.2;
const RESAMPLES = 2000;

/** The reference program exactly as a user would first run it: defaults, whole file. */
function runContinuous(wavPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pocketsphinx_continuous', ['-infile', wavPath, '-logfn', '/dev/null'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // At the niceness of the service's decoders (TAKELINE_BACKGROUND_NICE), so a busy machine slows both alike.
    lowerProcessPriority(child.pid);
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

/**
 * --mode pipeline: file after file, the untuned program and the whole pipeline on the same file, one right
 * after the other (alternating which goes first), so a load that changes during the run weighs on both
 * alike. The pipeline's engines are warm and kept across files, as in the service.
 */
async function sideBySide(
  items: Item[],
  audio: Float32Array[],
  totalSeconds: number,
): Promise<{ baseline: WerResult[] | null; ours: WerResult[] }> {
  const tools = resolveMediaTools();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-asr-bench-'));
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer({ decoderArgs: extraArgs, workers, pronunciationVariants });
  const service = createServiceDiarizer({ vad });
  try {
    if (runBaseline) items.forEach((_, i) => writeFileSync(path.join(tmp, `${i}.wav`), wav16(audio[i]!)));
    // Warm, as in the service: the decoders start and the VAD loads before the first request is timed.
    await recognizer.recognize(audio[0]!.subarray(0, SAMPLE_RATE));
    await vad.detect(audio[0]!.subarray(0, SAMPLE_RATE));
    const timeline = new StageTimeline();
    const deps = {
      tools,
      vad: timeline.vad(vad),
      recognizer: timeline.recognizer(recognizer),
      diarizer: timeline.diarizer(service.diarizer),
      concurrency: workers,
      // Noisy chunks denoised, as the service does (--denoise off: none).
      denoiser: denoise === 'off' ? undefined : createRnnoiseDenoiser(),
      // Reverberant chunks dereverberated, as the service does (--dereverb off: none).
      dereverberator: dereverbFlag === 'off' ? undefined : createWpeDereverberator(),
    };
    const totals = { programWall: 0, programCpu: 0, wall: 0, cpu: 0 };
    const loads: number[] = [];
    const baseline: WerResult[] = [];
    const ours: WerResult[] = [];
    const stageRows: { label: string; summary: StageSummary; programMs?: number }[] = [];
    for (const [i, it] of items.entries()) {
      let programMs: number | undefined;
      const program = async () => {
        const cpu0 = childrenCpuSeconds();
        const t0 = performance.now();
        const text = await runContinuous(path.join(tmp, `${i}.wav`));
        programMs = performance.now() - t0;
        totals.programWall += programMs / 1000;
        totals.programCpu += childrenCpuSeconds() - cpu0;
        baseline[i] = wordErrorRate(it.reference, text);
      };
      const pipeline = async () => {
        const cpu0 = treeCpuSeconds() + liveChildrenCpuSeconds('pocketsphinx');
        const t0 = performance.now();
        timeline.begin();
        // As the service does at the start of every request (no-ops once warm).
        recognizer.prepare?.();
        service.warm();
        const transcript = await transcribeFile(path.join(asrDir, it.file), deps, {
          chunks: { maxChunkSeconds: maxChunk, mergeGapSeconds: mergeGap },
        });
        const stages = timeline.finish();
        totals.wall += (performance.now() - t0) / 1000;
        totals.cpu += treeCpuSeconds() + liveChildrenCpuSeconds('pocketsphinx') - cpu0;
        ours[i] = wordErrorRate(it.reference, transcript.text);
        if (verbose) console.log(`${pct(ours[i]!.wer).padStart(6)} ${it.file}\n   ref: ${it.reference}\n   hyp: ${transcript.text}`);
        return stages;
      };
      let stages;
      if (!runBaseline) stages = await pipeline();
      else if (i % 2 === 0) {
        await program();
        stages = await pipeline();
      } else {
        stages = await pipeline();
        await program();
      }
      stageRows.push({ label: it.file, summary: summarize(stages), programMs });
      loads.push(os.loadavg()[0]!);
    }
    const nice = backgroundNiceness(os.getPriority(), backgroundNiceSteps(process.env.TAKELINE_BACKGROUND_NICE));
    console.log(
      `load average (1 min) during the run: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; ` +
        `decoders${runBaseline ? ' and the program' : ''} at nice ${nice}; one file at a time, ${workers} decoders`,
    );
    if (runBaseline) {
      console.log(
        `program:  ${totals.programWall.toFixed(1)} s wall (RTF ${(totals.programWall / totalSeconds).toFixed(3)}), ` +
          `${totals.programCpu.toFixed(1)} CPU s (${(totals.programCpu / totalSeconds).toFixed(3)} per audio s)`,
      );
    }
    console.log(
      `pipeline: ${totals.wall.toFixed(1)} s wall (RTF ${(totals.wall / totalSeconds).toFixed(3)}, target ≤ 0.25), ` +
        `${totals.cpu.toFixed(1)} CPU s (${(totals.cpu / totalSeconds).toFixed(3)} per audio s)`,
    );
    if (runBaseline) {
      console.log(
        `pipeline / program: wall ${(totals.wall / totals.programWall).toFixed(3)} (target ≤ 0.6), CPU ${(totals.cpu / totals.programCpu).toFixed(3)}`,
      );
    }
    const table = formatStages(stageRows);
    console.log(`stages per request, ms from its start (program = the untuned program's wall on the same file):`);
    for (const line of timelineRows ? table : [table[0]!, table.at(-1)!]) console.log(`  ${line}`);
    return { baseline: runBaseline ? baseline : null, ours };
  } finally {
    await recognizer.close();
    await service.close();
    await vad.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const items = loadItems();
  const gain = 10 ** (gainDb / 20);
  const audio = await mapLimit(items, 2, async (it, i) => {
    let pcm = await decodeAudioToArray(path.join(asrDir, it.file), resolveMediaTools());
    if (degradation) pcm = await degraded(pcm, degradation, i);
    return gain === 1 ? pcm : pcm.map((x) => x * gain);
  });
  const totalSeconds = audio.reduce((a, p) => a + p.length / SAMPLE_RATE, 0);
  console.log(
    `${items.length} files, ${(totalSeconds / 60).toFixed(1)} min; mode ${mode}; extra args ${JSON.stringify(extraArgs)}; gain ${gainDb} dB; ${levelling ? 'levelled' : 'unlevelled'}; ${describeDegradation(degradation ?? {})}`,
  );

  let baseline: WerResult[] | null = null;
  let ours: WerResult[];
  if (pipelineMode) {
    ({ baseline, ours } = await sideBySide(items, audio, totalSeconds));
  } else {
    if (runBaseline) {
      const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-asr-bench-'));
      try {
        items.forEach((_, i) => writeFileSync(path.join(tmp, `${i}.wav`), wav16(audio[i]!)));
        const t0 = Date.now();
        baseline = await mapLimit(items, 2, async (it, i) =>
          wordErrorRate(it.reference, await runContinuous(path.join(tmp, `${i}.wav`))),
        );
        console.log(`baseline: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    const vad = createSileroVad();
    const recognizer = createPocketSphinxRecognizer({ decoderArgs: extraArgs, workers, pronunciationVariants });
    const denoiser = createRnnoiseDenoiser();
    const snrs: number[] = [];
    let denoised = 0;
    const removed: number[] = [];
    let dereverberated = 0;
    // As the pipeline does (speech/enhancement): a chunk that holds late reverberation is dereverberated, then one
    // whose speech is under 25 dB SNR is denoised.
    const enhance = async (original: Float32Array, span: Span, speech: Span[]): Promise<Float32Array> => {
      let chunk = original;
      if (dereverbFlag !== 'off') {
        const r = dereverberate(chunk, { taps: dereverbTaps, iterations: dereverbIterations, skipBelowDb: dereverbAboveDb });
        removed.push(r.firstRemovedDb);
        if (r.applied) dereverberated++;
        chunk = r.pcm;
      }
      if (denoise === 'off') return chunk;
      if (denoise === 'on') {
        denoised++;
        return denoiser.denoise(chunk);
      }
      const heard = await denoisedIfNoisy(denoiser, chunk, speechWithin(speech, span), denoiseBelowDb);
      if (heard.snrDb !== null) snrs.push(heard.snrDb);
      if (heard.denoised) denoised++;
      return heard.pcm;
    };
    const t0 = Date.now();
    let chunks = 0;
    ours = await mapLimit(items, workers, async (it, i) => {
      const pcm = levelling ? await levelledRecording(audio[i]!) : audio[i]!;
      const speech = await vad.detect(pcm);
      const spans = mode === 'whole' ? [{ start: 0, end: pcm.length / SAMPLE_RATE }] : mergeSpans(speech);
      chunks += spans.length;
      const texts = await Promise.all(
        spans.map(async (s) => {
          const a = Math.max(0, Math.round(s.start * SAMPLE_RATE));
          const b = Math.min(pcm.length, Math.round(s.end * SAMPLE_RATE));
          const chunk = await enhance(pcm.subarray(a, b), s, speech);
          const segments = await recognizer.recognize(chunk, { offset: s.start });
          return segments.map((seg) => seg.text).join(' ');
        }),
      );
      const hyp = texts.join(' ');
      const r = wordErrorRate(it.reference, hyp);
      if (verbose) console.log(`${pct(r.wer).padStart(6)} ${it.file}\n   ref: ${it.reference}\n   hyp: ${hyp}`);
      return r;
    });
    const elapsed = (Date.now() - t0) / 1000;
    await recognizer.close();
    await vad.close();
    console.log(
      `ours: ${elapsed.toFixed(1)} s wall (${(elapsed / totalSeconds).toFixed(3)} × real time, ${workers} workers), ${chunks} chunks`,
    );
    if (removed.length) {
      removed.sort((x, y) => x - y);
      const at = (p: number) => removed[Math.min(removed.length - 1, Math.floor(p * removed.length))]!.toFixed(1);
      console.log(`dereverb ${dereverbFlag}: ${dereverberated} chunks dereverberated; first iteration removed, dB under the chunk: min ${at(0)}, 10% ${at(0.1)}, median ${at(0.5)}, 90% ${at(0.9)}, max ${at(1)}`);
    }
    snrs.sort((x, y) => x - y);
    const q = (p: number) => (snrs.length ? snrs[Math.min(snrs.length - 1, Math.floor(p * snrs.length))]!.toFixed(1) : '-');
    console.log(
      `denoise ${denoiseFlag}: ${denoised} of ${chunks} chunks denoised; chunk SNR dB min ${q(0)}, 10% ${q(0.1)}, median ${q(0.5)}, 90% ${q(0.9)}`,
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
  if (baseline) printIntervals(items, ours, baseline, where);
}

/**
 * How much the relative change could move on more files like these: a paired bootstrap over files, resampled
 * within each source (bench/lib/bootstrap.ts), for each half and for each source with ≥ 10 files in a half.
 */
function printIntervals(
  items: readonly Item[],
  ours: readonly WerResult[],
  baseline: readonly WerResult[],
  where: (keep: (it: Item) => boolean) => number[],
): void {
  const signed = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}%`;
  console.log(
    `relative change in errors, 95% interval of a paired bootstrap over files within each source (${RESAMPLES} resamples), and the share of resamples at or below the ${signed(WER_TARGET)} target:`,
  );
  const line = (name: string, idx: number[]) => {
    const r = relativeChangeInterval(
      idx.map((i) => ({ stratum: items[i]!.set, ours: errorCount(ours[i]!), baseline: errorCount(baseline[i]!) })),
      { target: WER_TARGET, resamples: RESAMPLES },
    );
    console.log(
      `  ${name.padEnd(17)} ${signed(r.relative).padStart(5)}  (${signed(r.low)} … ${signed(r.high)})  ${(r.atOrBelowTarget! * 100).toFixed(0)}% of resamples ≤ ${signed(WER_TARGET)}`,
    );
  };
  for (const half of ['tune', 'test'] as const) {
    const all = where((it) => it.half === half);
    if (all.length === 0) continue;
    line(`ALL ${half}`, all);
    for (const set of new Set(items.map((it) => it.set))) {
      const idx = where((it) => it.set === set && it.half === half);
      if (idx.length >= 10) line(`${set} ${half}`, idx);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
