/**
 * Script alignment on a long recording: the reference of ../shared/audio/long (13.8 min, 121 clips joined)
 * aligned to it as `POST …/transcript/align` does (transcription/script-align.ts: anchors on the recognised
 * words, forced alignment stretch by stretch). Prints wall time, real-time factor, CPU, words aligned vs
 * interpolated, how far the script's words are from the recogniser's times where it got them right, and
 * how many words land inside their own clip (the joined clips' boundaries are known exactly).
 *
 *   nice -n 10 node --import tsx bench/alignment/run.ts [--file <audio>] [--refs <segments.tsv>] [--workers 2]
 *
 * The recogniser's words come from the pipeline (Silero VAD + PocketSphinx, 2–3 min of CPU), run once and
 * cached in the OS temp folder by file size and time (--fresh runs it again).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudio } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { median } from '../../src/service/dsp/stats';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { alignTokens } from '../../src/service/speech/alignment/script-anchors';
import { scriptLexicon } from '../../src/service/speech/alignment/script-lexicon';
import { parseScript } from '../../src/service/speech/alignment/script-text';
import { normalizeWords } from '../../src/service/speech/scoring/wer';
import { alignScriptWords, recognizedWords } from '../../src/service/transcription/script-align';
import { retryingRecognizer } from '../../src/service/transcription/recognition-retry';
import type { Transcript } from '../../src/service/speech/types';
import { flagValue as flag } from '../lib/args';
import { treeCpuSeconds } from '../lib/proc-cpu';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR ?? path.resolve(repoRoot, '../shared');
const file = flag('--file') ?? path.join(sharedDir, 'audio/long/read_speech_concat.flac');
const refsFile = flag('--refs') ?? path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv');
const workers = Number(flag('--workers') ?? 2);
const tools = resolveMediaTools();

interface RefSegment {
  start: number;
  end: number;
  text: string;
}
const refs: RefSegment[] = readFileSync(refsFile, 'utf8')
  .split('\n')
  .slice(1)
  .filter(Boolean)
  .map((line) => {
    const [start, end, , text] = line.split('\t');
    return { start: Number(start), end: Number(end), text: text ?? '' };
  });

/** The pipeline's transcript of `file`, from the cache when this file was transcribed before. */
async function recognized(): Promise<{ transcript: Transcript; cached: boolean; seconds: number }> {
  const stat = statSync(file);
  const dir = path.join(os.tmpdir(), 'takeline-bench-alignment');
  const cache = path.join(dir, `${path.basename(file)}-${stat.size}-${Math.round(stat.mtimeMs)}.json`);
  if (existsSync(cache) && !process.argv.includes('--fresh')) return { transcript: JSON.parse(readFileSync(cache, 'utf8')) as Transcript, cached: true, seconds: 0 };
  const recognizer = createPocketSphinxRecognizer();
  const t0 = performance.now();
  try {
    // Retried once per chunk as the service does: a decoder's watchdog can fire on a machine starved of CPU.
    const transcript = await transcribeFile(file, { tools, vad: createSileroVad(), recognizer: retryingRecognizer(recognizer), concurrency: os.availableParallelism() });
    mkdirSync(dir, { recursive: true });
    writeFileSync(cache, JSON.stringify(transcript));
    return { transcript, cached: false, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await recognizer.close();
  }
}

const r3 = (x: number | null) => (x === null ? null : +x.toFixed(3));

async function main() {
  const rec = await recognized();
  const transcript = rec.transcript;
  const script = parseScript(refs.map((r) => r.text).join('\n'));
  const heard = recognizedWords(transcript);

  const cpu0 = treeCpuSeconds();
  const t0 = performance.now();
  const lexicon = await scriptLexicon(resolvePocketSphinxModel().dict, script.words.flatMap((w) => w.key.split(' ')));
  const aligner = createPocketSphinxAligner({ workers, dictionary: lexicon.dictionary ?? undefined });
  const { words, stats } = await alignScriptWords({ script, recognized: heard, duration: transcript.duration, audio: decodeAudio(file, tools), aligner });
  const wall = (performance.now() - t0) / 1000;
  await aligner.close();
  lexicon.dispose();
  const cpu = treeCpuSeconds() - cpu0;

  // Every word timed, in order, not overlapping.
  let ordered = words.length === script.words.length;
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    if (!(Number.isFinite(w.start) && w.end >= w.start && (k === 0 || w.start >= words[k - 1]!.end))) ordered = false;
  }

  // Words the recogniser got right: matched in order to a recognised word with the same normalised form.
  const pairs = alignTokens(
    script.words.map((w) => w.key),
    heard.map((w) => normalizeWords(w.word).join(' ')),
  );
  const dStart = pairs.map(([i, j]) => Math.abs(words[i]!.start - heard[j]!.start));
  const dEnd = pairs.map(([i, j]) => Math.abs(words[i]!.end - heard[j]!.end));
  const dMid = pairs.map(([i, j]) => Math.abs((words[i]!.start + words[i]!.end) / 2 - (heard[j]!.start + heard[j]!.end) / 2));

  // Words inside their own clip: the script's line k is the clip k of the joined recording.
  let inside = 0;
  for (let k = 0; k < words.length; k++) {
    const clip = refs[script.words[k]!.line]!;
    const mid = (words[k]!.start + words[k]!.end) / 2;
    if (mid >= clip.start && mid <= clip.end) inside++;
  }

  const report = {
    file: path.relative(repoRoot, file),
    duration_s: r3(transcript.duration),
    cores: os.availableParallelism(),
    load_avg_1m: r3(os.loadavg()[0]!),
    workers,
    recognizer_words: heard.length,
    recognizer: rec.cached ? 'cached transcript' : `transcribed now in ${rec.seconds.toFixed(1)} s`,
    script_words: script.words.length,
    wall_s: r3(wall),
    real_time_factor: r3(wall / transcript.duration),
    cpu_s: r3(cpu),
    ...stats,
    pronounced: lexicon.added.length,
    no_pronunciation: lexicon.missing,
    every_word_timed_in_order: ordered,
    recognizer_right_words: pairs.length,
    median_abs_diff_vs_recognizer_s: { start: r3(median(dStart)), end: r3(median(dEnd)), middle: r3(median(dMid)) },
    words_inside_their_own_clip: `${inside} / ${words.length} (${((100 * inside) / words.length).toFixed(2)} %)`,
  };
  console.log(JSON.stringify(report, null, 2));
  if (!ordered) process.exitCode = 1;
}

await main();
