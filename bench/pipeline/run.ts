/**
 * The whole transcription pipeline on a long recording: real-time factor, peak memory (this process plus
 * ffmpeg and the decoder processes), and long-form WER against the reference.
 *
 *   nice -n 10 node --import tsx bench/pipeline/run.ts [--file <audio>] [--refs <segments.tsv>]
 *       [--no-diarize] [--no-recognition] [--concurrency 2] [--max-chunk 20] [--merge-gap 0.6] [--json]
 *
 * Defaults: ../shared/audio/long/read_speech_concat.flac (13.8 min) and its segments.tsv; Silero VAD,
 * PocketSphinx pool (one decoder per core), the service's diarizer. Targets: RTF ≤ 0.25 on 2 cores.
 *
 * Memory: Node's own peak is process.resourceUsage().maxRSS; children are not covered by it (Node does
 * not expose RUSAGE_CHILDREN), so every 100 ms the bench reads VmRSS of this process and all its
 * descendants from /proc and keeps the largest sum seen (the tree's concurrent peak), plus each child's
 * own high-water mark (VmHWM) at the last sample it was alive.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveMediaTools } from '../../src/service/media/tools';
import { transcribeFile, type TranscribeStage } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { createServiceDiarizer } from '../../src/service/transcription/local-engine';
import { wordErrorRate } from '../../src/service/speech/scoring/wer';
import type { Recognizer } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { treeCpuSeconds } from '../lib/proc-cpu';
import { TreeMemory } from '../lib/tree-memory';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const file = flag('--file') ?? path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const refsFile =
  flag('--refs') ??
  (flag('--file') ? undefined : path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv'));
const diarize = !process.argv.includes('--no-diarize');
const concurrency = Number(flag('--concurrency') ?? os.availableParallelism());
const maxChunk = Number(flag('--max-chunk') ?? 20);
const mergeGap = Number(flag('--merge-gap') ?? 0.6);
// Replaces PocketSphinx with a recognizer that returns nothing at once: measures decode, VAD, PCM
// retention and diarization alone (memory of an hour-long file without waiting for an hour of decoding).
const noRecognition = process.argv.includes('--no-recognition');

function loadReference(tsv: string): string {
  return readFileSync(tsv, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split('\t')[3] ?? '')
    .join(' ');
}

const mb = (kb: number) => Math.round(kb / 1024);

async function main(): Promise<void> {
  const tools = resolveMediaTools();
  const vad = createSileroVad();
  const recognizer: Recognizer = noRecognition
    ? { id: 'none', recognize: async () => [], close: async () => {} }
    : createPocketSphinxRecognizer();
  // The service's own diarizer (worker thread, diarization VAD), so the figures are the service's.
  const service = diarize ? createServiceDiarizer() : undefined;
  const diarizer = service?.diarizer;
  const memory = new TreeMemory();
  const stageAt: Partial<Record<TranscribeStage, number>> = {};
  let firstSegmentAt: number | null = null;
  let segmentsStreamed = 0;

  memory.start();
  const cpu0 = treeCpuSeconds();
  const t0 = performance.now();
  const transcript = await transcribeFile(
    file,
    { tools, vad, recognizer, diarizer, concurrency },
    {
      chunks: { maxChunkSeconds: maxChunk, mergeGapSeconds: mergeGap },
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
  memory.stop();
  await recognizer.close();
  await vad.close();
  await service?.close();
  await new Promise((resolve) => setTimeout(resolve, 200)); // let the decoder processes be reaped
  const cpu = treeCpuSeconds() - cpu0;

  const recognizedAt = stageAt.diarize ?? wall;
  const children = [...memory.childHwmKb.values()];
  const byName = new Map<string, number>();
  for (const c of children) byName.set(c.name, Math.max(byName.get(c.name) ?? 0, c.kb));
  const report: Record<string, unknown> = {
    recognizer: recognizer.id,
    file: path.relative(repoRoot, file),
    duration_s: transcript.duration,
    cores: os.availableParallelism(),
    concurrency,
    wall_s: +wall.toFixed(2),
    rtf: +(wall / transcript.duration).toFixed(4),
    cpu_s: +cpu.toFixed(1),
    // What the wall time would be if nothing else ran on the cores: the CPU work spread over all of them.
    rtf_cpu_bound: +(cpu / os.availableParallelism() / transcript.duration).toFixed(4),
    load_avg_1m: +os.loadavg()[0]!.toFixed(2),
    decode_vad_recognize_s: +recognizedAt.toFixed(2),
    diarize_tail_s: diarizer ? +(wall - recognizedAt).toFixed(2) : null,
    first_segment_s: firstSegmentAt === null ? null : +(firstSegmentAt as number).toFixed(2),
    segments_streamed: segmentsStreamed,
    segments: transcript.segments.length,
    speakers: transcript.speakers.length,
    words: transcript.segments.reduce((n, s) => n + s.words.length, 0),
    node_max_rss_mb: mb(process.resourceUsage().maxRSS),
    tree_peak_rss_mb: mb(memory.peakTreeKb),
    child_peak_rss_mb: Object.fromEntries([...byName].map(([k, v]) => [k, mb(v)])),
  };
  if (refsFile && !noRecognition) {
    const wer = wordErrorRate(loadReference(refsFile), transcript.text);
    report.wer = +wer.wer.toFixed(4);
    report.wer_detail = {
      reference_words: wer.referenceWords,
      substitutions: wer.substitutions,
      deletions: wer.deletions,
      insertions: wer.insertions,
    };
  }
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(report));
  } else {
    for (const [k, v] of Object.entries(report))
      console.log(`${k.padEnd(24)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
    console.log(`\nfirst words: ${transcript.text.slice(0, 200)}…`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
