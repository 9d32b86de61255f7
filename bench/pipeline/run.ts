/**
 * The whole transcription pipeline on a long recording: real-time factor, peak memory (this process plus
 * ffmpeg and the decoder processes), and long-form WER against the reference.
 *
 *   nice -n 10 node --import tsx bench/pipeline/run.ts [--file <audio>] [--refs <segments.tsv>]
 *       [--excerpt 300 [--start 0]] [--baseline] [--rounds 1] [--args "-ds 2"]
 *       [--no-diarize] [--no-recognition] [--concurrency 2] [--max-chunk 20] [--merge-gap 0.6] [--json]
 *       [--no-adapt] [--adapt-min-seconds 30] [--no-variants] [--no-levelling] [--no-denoise] [--no-dereverb]
 *
 * Defaults: ../shared/audio/long/read_speech_concat.flac (13.8 min) and its segments.tsv; Silero VAD,
 * PocketSphinx pool (one decoder per core) with the service's adaptation within the recording (a voice's later
 * chunks decoded with a transform fitted to its earlier ones; needs Debian's sphinxtrain), the service's
 * diarizer. Targets: RTF ≤ 0.25 on 2 cores and,
 * with --baseline, wall time ≤ 0.6 × the untuned `pocketsphinx_continuous -infile x.wav` on the same audio
 * (run one after the other in this run, `--rounds N` times alternately; the ratio is printed per round, and over
 * the rounds their median and the ratio of the summed walls).
 * --excerpt cuts that many seconds (from --start, both moved to the reference's segment boundaries) into a
 * 16 kHz WAV that both systems read. With the reference, WER is printed per half (bench/lib/halves.ts) of the
 * source files the long recording joins (ours: words placed by their times; the program prints no times,
 * so its WER is for the whole excerpt). CPU is split by stage from /proc samples: decode (ffmpeg), VAD
 * (the streamed Silero pass, timed on the main thread), recognition (the decoder processes), the rest of the
 * main thread (pitch cues, text, the diarizer's own VAD pass, I/O) and Node's other threads (the diarizer's
 * worker, GC).
 *
 * Memory: Node's own peak is process.resourceUsage().maxRSS; children are not covered by it (Node does
 * not expose RUSAGE_CHILDREN), so every 100 ms the bench reads VmRSS of this process and all its
 * descendants from /proc and keeps the largest sum seen (the tree's concurrent peak), plus each child's
 * own high-water mark (VmHWM) at the last sample it was alive.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveMediaTools } from '../../src/service/media/tools';
import { lowerProcessPriority } from '../../src/service/jobs/background-priority';
import { median } from '../../src/service/dsp/stats';
import { transcribeFile, type TranscribeStage } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { createRnnoiseDenoiser } from '../../src/service/speech/enhancement/rnnoise';
import { createWpeDereverberator } from '../../src/service/speech/enhancement/reverberant-speech';
import { createServiceDiarizer } from '../../src/service/transcription/local-engine';
import { sumWer, wordErrorRate } from '../../src/service/speech/scoring/wer';
import type { Recognizer, Transcript } from '../../src/service/speech/types';
import { createSileroVad, type StreamingVoiceActivityDetector } from '../../src/service/speech/vad/silero';
import { halves, type Half } from '../lib/halves';
import { childrenCpuSeconds, treeCpuSeconds } from '../lib/proc-cpu';
import { TreeMemory } from '../lib/tree-memory';
import { formatStages, StageTimeline, summarize, type StageSummary } from '../lib/stage-timeline';
import { parseDecoderFlags } from '../lib/decoder-flags';
import { resolveSphinxtrain } from '../../src/service/speech/recognition/pocketsphinx/adaptation';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { requestAdaptingRecognizer, WITHIN_RECORDING_MAX_BATCH_SECONDS } from '../../src/service/transcription/request-adaptation';
import { spectralVoiceMatcher } from '../../src/service/speakers/voice-matcher';
import { SpeakerAdaptation } from '../../src/service/speakers/speaker-adaptation';
import { SqlAdaptationStore } from '../../src/service/storage/adaptation-store';
import { SqliteSql } from '../../src/service/storage/sql/sqlite-sql';
import { openDatabase } from '../../src/service/storage/database';
import { FolderBlobStore } from '../../src/service/storage/blobs/folder-blob-store';
import { DEFAULT_SPEAKER_ADAPTATION } from '../../src/service/config';
import { flagValue as flag } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');

const sourceFile = flag('--file') ?? path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const refsFile =
  flag('--refs') ??
  (flag('--file') ? undefined : path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv'));
const diarize = !process.argv.includes('--no-diarize');
// Adaptation within the recording, on as in the service (src/service/transcription/request-adaptation.ts);
// --no-adapt turns it off, --adapt-min-seconds N (TAKELINE_ADAPTATION_MIN_SECONDS) sets its threshold.
const adaptInRequest = !process.argv.includes('--no-adapt');
const adaptMinSeconds = Number(flag('--adapt-min-seconds') ?? 30);
// The function words' British forms and devoiced pronunciations, on as in the service;
// --no-variants: the model's dictionary.
const pronunciationVariants = !process.argv.includes('--no-variants');
// The recording levelled to one peak before the VAD and the decoders, as in the service; --no-levelling: as recorded.
const levelling = !process.argv.includes('--no-levelling');
// Chunks whose speech is under 25 dB SNR denoised before recognition, as in the service; --no-denoise: none.
const denoiser = process.argv.includes('--no-denoise') ? undefined : createRnnoiseDenoiser();
// Chunks that hold late reverberation dereverberated first, as in the service; --no-dereverb: none.
const dereverberator = process.argv.includes('--no-dereverb') ? undefined : createWpeDereverberator();
const concurrency = Number(flag('--concurrency') ?? os.availableParallelism());
const maxChunk = Number(flag('--max-chunk') ?? 20);
const mergeGap = Number(flag('--merge-gap') ?? 0.6);
// Replaces PocketSphinx with a recognizer that returns nothing at once: measures decode, VAD, PCM
// retention and diarization alone (memory of an hour-long file without waiting for an hour of decoding).
const noRecognition = process.argv.includes('--no-recognition');
const excerpt = flag('--excerpt') === undefined ? null : Number(flag('--excerpt'));
const excerptStart = Number(flag('--start') ?? 0);
const baseline = process.argv.includes('--baseline');
const rounds = Math.max(1, Number(flag('--rounds') ?? 1));
const extraArgs = parseDecoderFlags(flag('--args'));

interface RefSegment {
  start: number;
  end: number;
  source: string;
  text: string;
}

function loadReference(tsv: string): RefSegment[] {
  return readFileSync(tsv, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [start, end, source, text] = line.split('\t');
      return { start: Number(start), end: Number(end), source: source ?? '', text: text ?? '' };
    });
}

const mb = (kb: number) => Math.round(kb / 1024);
const r2 = (x: number) => +x.toFixed(2);

function run(bin: string, args: string[], background = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (background) lowerProcessPriority(child.pid);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${bin} exit ${code}: ${err.slice(-300)}`))));
  });
}

/** The reference program exactly as a user would first run it: defaults, the whole file. */
async function runContinuous(wav: string): Promise<{ wall: number; cpu: number; text: string }> {
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  // At the niceness of the service's decoders (TAKELINE_BACKGROUND_NICE), so a busy machine slows both alike.
  const out = await run('pocketsphinx_continuous', ['-infile', wav, '-logfn', '/dev/null'], true);
  return {
    wall: (performance.now() - t0) / 1000,
    cpu: childrenCpuSeconds() - cpu0,
    text: out.split('\n').map((l) => l.trim()).filter(Boolean).join(' '),
  };
}

interface PipelineRun {
  transcript: Transcript;
  wall: number;
  cpu: number;
  stages: Record<string, number>;
  recognizedAt: number;
  firstSegmentAt: number | null;
  segmentsStreamed: number;
  memory: TreeMemory;
  timeline: StageSummary;
}

/** The service's adaptation within a recording, composed as server.ts does, with its files under `tmp`. */
async function requestAdaptation(recognizer: Recognizer, tmp: string, round: number) {
  // Adaptation within a recording keeps nothing; the per-speaker state's store and files are there but unused.
  const adaptation = new SpeakerAdaptation({ ...DEFAULT_SPEAKER_ADAPTATION, minSeconds: adaptMinSeconds }, {
    model: resolvePocketSphinxModel(),
    tools: resolveSphinxtrain(),
    store: new SqlAdaptationStore(new SqliteSql(openDatabase(path.join(tmp, `adaptation-${round}.db`)))),
    blobs: new FolderBlobStore(tmp),
    cacheDir: tmp,
    scratchDir: tmp,
  });
  const estimator = adaptation.recordingEstimator(path.join(tmp, `adapt-${round}`));
  if (!estimator) throw new Error('adaptation within the recording needs Debian sphinxtrain (or pass --no-adapt)');
  return requestAdaptingRecognizer(recognizer, estimator, spectralVoiceMatcher, adaptation.words(), {
    maxBatchSeconds: WITHIN_RECORDING_MAX_BATCH_SECONDS,
    lag: concurrency,
  });
}

type ServiceDiarizer = ReturnType<typeof createServiceDiarizer>;

async function runPipeline(
  file: string,
  recognizer: Recognizer,
  vad: StreamingVoiceActivityDetector,
  service: ServiceDiarizer | undefined,
): Promise<PipelineRun> {
  const timeline = new StageTimeline();
  const memory = new TreeMemory();
  const stageAt: Partial<Record<TranscribeStage, number>> = {};
  let firstSegmentAt: number | null = null;
  let segmentsStreamed = 0;
  memory.start();
  const threads0 = new Map(memory.threadCpu);
  const cpu0 = treeCpuSeconds();
  const t0 = performance.now();
  timeline.begin();
  // As the service does at the start of every request (no-ops once warm).
  recognizer.prepare?.();
  service?.warm();
  const transcript = await transcribeFile(
    file,
    {
      tools: resolveMediaTools(),
      vad: timeline.vad(vad),
      recognizer: timeline.recognizer(recognizer),
      diarizer: service && timeline.diarizer(service.diarizer),
      concurrency,
      denoiser,
      dereverberator,
    },
    {
      chunks: { maxChunkSeconds: maxChunk, mergeGapSeconds: mergeGap },
      levelling,
      onProgress: (_fraction, stage) => {
        stageAt[stage] ??= (performance.now() - t0) / 1000;
      },
      onSegment: () => {
        firstSegmentAt ??= (performance.now() - t0) / 1000;
        segmentsStreamed++;
      },
    },
  );
  const wall = (performance.now() - t0) / 1000;
  const stagesMs = summarize(timeline.finish());
  memory.stop();
  // The pool stays warm between rounds, as in the service; its CPU is read from the samples.
  const cpuNow = treeCpuSeconds();
  // (Linux truncates a process name to 15 characters: pocketsphinx_batch is "pocketsphinx_ba".)
  const byName = (prefixes: string[]) =>
    [...memory.childCpu.values()]
      .filter((c) => prefixes.some((p) => c.name.startsWith(p)))
      .reduce((a, c) => a + c.seconds, 0);
  const mainThread = (memory.threadCpu.get(process.pid) ?? 0) - (threads0.get(process.pid) ?? 0);
  let otherThreads = 0;
  for (const [tid, seconds] of memory.threadCpu) if (tid !== process.pid) otherThreads += seconds - (threads0.get(tid) ?? 0);
  const decode = byName(['ffmpeg', 'ffprobe']);
  const recognition = byName(['pocketsphinx']) - recognitionCpuBefore;
  recognitionCpuBefore += recognition;
  const stages = {
    decode,
    vad: timeline.vadCpuSeconds,
    recognition,
    main_thread_rest: mainThread - timeline.vadCpuSeconds - memory.ownCpuSeconds,
    other_threads: otherThreads,
  };
  return {
    transcript,
    wall,
    // Reaped children (ffmpeg) and this process are exact; the live decoders are sampled.
    cpu: cpuNow - cpu0 + recognition - memory.ownCpuSeconds,
    stages,
    recognizedAt: stageAt.diarize ?? wall,
    firstSegmentAt,
    segmentsStreamed,
    memory,
    timeline: stagesMs,
  };
}
let recognitionCpuBefore = 0;

/** A 16 kHz mono 16-bit WAV of [start, end) of the source, which both systems read. */
async function cutExcerpt(dir: string, start: number, end: number): Promise<string> {
  const out = path.join(dir, 'excerpt.wav');
  const tools = resolveMediaTools();
  await run(tools.ffmpeg, ['-v', 'error', '-ss', String(start), '-t', String(end - start), '-i', sourceFile, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-y', out]);
  return out;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-pipeline-bench-'));
  try {
    await bench(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function bench(tmp: string): Promise<void> {
  let refs = refsFile ? loadReference(refsFile) : null;
  let file = sourceFile;
  let offset = 0;
  if (excerpt !== null || baseline) {
    // The program reads WAV only: the source is cut (or converted) to one, and both systems read that.
    let start = excerptStart;
    let end = excerpt === null ? Infinity : excerptStart + excerpt;
    if (refs) {
      const inside = refs.filter((s) => s.start >= start - 1e-3 && s.end <= end + 1e-3);
      start = inside[0]?.start ?? start;
      end = inside[inside.length - 1]?.end ?? end;
      refs = inside;
    }
    if (!Number.isFinite(end)) end = 1e7;
    file = await cutExcerpt(tmp, start, end);
    offset = start;
  }
  const vad = createSileroVad();
  const recognizer: Recognizer = noRecognition
    ? { id: 'none', recognize: async () => [], close: async () => {} }
    : createPocketSphinxRecognizer({ decoderArgs: extraArgs, pronunciationVariants });
  // The service's own diarizer (worker thread, diarization VAD), kept across rounds as the service keeps it.
  const service = diarize ? createServiceDiarizer({ vad }) : undefined;

  const report: Record<string, unknown> = {
    recognizer: recognizer.id,
    decoder_args: extraArgs,
    levelling,
    denoise: denoiser !== undefined,
    dereverb: dereverberator !== undefined,
    pronunciation_variants: pronunciationVariants,
    file: path.relative(repoRoot, sourceFile),
    excerpt: file === sourceFile ? null : `${offset.toFixed(1)} s + ${refs ? (refs.at(-1)!.end - offset).toFixed(1) : excerpt} s`,
    cores: os.availableParallelism(),
    concurrency,
  };
  // Each round's walls, for the figures over all rounds: the machine's speed moves between rounds.
  const pairs: { pipeline: number; program: number }[] = [];
  const roundRows: string[][] = [['round', 'program wall s', 'CPU s', 'pipeline wall s', 'CPU s', 'wall ratio', 'RTF', 'load 1m']];
  let last: PipelineRun | null = null;
  let cli: Awaited<ReturnType<typeof runContinuous>> | null = null;
  for (let round = 1; round <= rounds; round++) {
    // Alternating order, so neither system always runs on a warmer (or busier) machine.
    if (baseline && round % 2 === 1) cli = await runContinuous(file);
    const adapting = adaptInRequest && !noRecognition ? await requestAdaptation(recognizer, tmp, round) : null;
    last = await runPipeline(file, adapting?.recognizer ?? recognizer, vad, service);
    if (adapting) {
      await adapting.recognizer.close();
      report[`within_recording_round_${round}`] = adapting.use();
    }
    if (baseline && round % 2 === 0) cli = await runContinuous(file);
    const duration = last.transcript.duration;
    if (cli) pairs.push({ pipeline: last.wall, program: cli.wall });
    roundRows.push([
      String(round),
      cli ? cli.wall.toFixed(1) : '-',
      cli ? cli.cpu.toFixed(1) : '-',
      last.wall.toFixed(1),
      last.cpu.toFixed(1),
      cli ? (last.wall / cli.wall).toFixed(3) : '-',
      (last.wall / duration).toFixed(3),
      os.loadavg()[0]!.toFixed(2),
    ]);
  }
  await recognizer.close();
  await vad.close();
  await service?.close();
  const { transcript, wall, cpu, stages, memory } = last!;

  const children = [...memory.childHwmKb.values()];
  const peakByName = new Map<string, number>();
  for (const c of children) peakByName.set(c.name, Math.max(peakByName.get(c.name) ?? 0, c.kb));
  Object.assign(report, {
    duration_s: transcript.duration,
    wall_s: r2(wall),
    rtf: +(wall / transcript.duration).toFixed(4),
    cpu_s: +cpu.toFixed(1),
    cpu_per_audio_s: +(cpu / transcript.duration).toFixed(4),
    // What the wall time would be if nothing else ran on the cores: the CPU work spread over all of them.
    rtf_cpu_bound: +(cpu / os.availableParallelism() / transcript.duration).toFixed(4),
    cpu_by_stage_s: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, +v.toFixed(1)])),
    load_avg_1m: +os.loadavg()[0]!.toFixed(2),
    decode_vad_recognize_s: r2(last!.recognizedAt),
    diarize_tail_s: diarize ? r2(wall - last!.recognizedAt) : null,
    first_segment_s: last!.firstSegmentAt === null ? null : r2(last!.firstSegmentAt),
    segments_streamed: last!.segmentsStreamed,
    segments: transcript.segments.length,
    speakers: transcript.speakers.length,
    words: transcript.segments.reduce((n, s) => n + s.words.length, 0),
    node_max_rss_mb: mb(process.resourceUsage().maxRSS),
    tree_peak_rss_mb: mb(memory.peakTreeKb),
    child_peak_rss_mb: Object.fromEntries([...peakByName].map(([k, v]) => [k, mb(v)])),
  });
  if (cli) {
    Object.assign(report, {
      program_wall_s: r2(cli.wall),
      program_cpu_s: r2(cli.cpu),
      program_cpu_per_audio_s: +(cli.cpu / transcript.duration).toFixed(4),
      wall_ratio: +(wall / cli.wall).toFixed(3),
      cpu_ratio: +(cpu / cli.cpu).toFixed(3),
    });
    if (pairs.length > 1) {
      const sum = (k: 'pipeline' | 'program') => pairs.reduce((a, p) => a + p[k], 0);
      Object.assign(report, {
        wall_ratio_median_of_rounds: +median(pairs.map((p) => p.pipeline / p.program))!.toFixed(3),
        wall_ratio_summed_rounds: +(sum('pipeline') / sum('program')).toFixed(3),
      });
    }
  }
  if (refs && !noRecognition) {
    const ours = wordErrorRate(refs.map((s) => s.text).join(' '), transcript.text);
    report.wer = +ours.wer.toFixed(4);
    report.wer_detail = { reference_words: ours.referenceWords, substitutions: ours.substitutions, deletions: ours.deletions, insertions: ours.insertions };
    if (cli) report.program_wer = +wordErrorRate(refs.map((s) => s.text).join(' '), cli.text).wer.toFixed(4);
    // Per half of the joined source files: each word goes to the reference segment holding its midpoint.
    const half = halves(refs.map((s) => s.source));
    const words = transcript.segments.flatMap((s) => s.words);
    const byHalf = new Map<Half, ReturnType<typeof wordErrorRate>[]>();
    for (const seg of refs) {
      const hyp = words
        .filter((w) => (w.start + w.end) / 2 + offset >= seg.start && (w.start + w.end) / 2 + offset < seg.end)
        .map((w) => w.word)
        .join(' ');
      const h = half.get(seg.source)!;
      if (!byHalf.has(h)) byHalf.set(h, []);
      byHalf.get(h)!.push(wordErrorRate(seg.text, hyp));
    }
    report.wer_by_half = Object.fromEntries([...byHalf].map(([h, list]) => [h, +sumWer(list).wer.toFixed(4)]));
  }
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(report));
  } else {
    for (const [k, v] of Object.entries(report))
      console.log(`${k.padEnd(24)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
    if (rounds > 1 || cli) {
      const widths = roundRows[0]!.map((_, c) => Math.max(...roundRows.map((r) => r[c]!.length)));
      console.log('');
      for (const r of roundRows) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
    }
    console.log('\nstages of the last round, ms from its start (bench/lib/stage-timeline.ts):');
    for (const line of formatStages([{ label: 'pipeline', summary: last!.timeline, programMs: cli ? cli.wall * 1000 : undefined }]))
      console.log(`  ${line}`);
    console.log(`\nfirst words: ${transcript.text.slice(0, 200)}…`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
