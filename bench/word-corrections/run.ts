/**
 * Word corrections (src/service/transcription/text-corrections.ts) against forced alignment of the whole
 * reference. Each clip of ../shared/audio/asr is transcribed as the service does (transcribeFile: Silero
 * VAD, PocketSphinx, the text writer); its recognized line is then corrected to the reference with the
 * service's own code (correctLine, timeCorrections with the aligner the service uses, espeak-ng for words
 * the dictionary lacks), so the errors corrected are the recognizer's real ones. The yardstick is the
 * same aligner over the whole clip with the whole reference. For the words a correction timed, it prints
 * the median and 90th percentile of |Δstart| and |Δend| against the yardstick, per half (bench/lib/halves.ts),
 * beside the same words spread by syllables in the same gaps (what the correction does when alignment fails).
 * Clips the recognizer splits into several lines are skipped (the reference has no line breaks to follow).
 *
 *   nice -n 10 node --import tsx bench/word-corrections/run.ts [--limit N] [--verbose]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { createPocketSphinxAligner } from '../../src/service/speech/alignment/pocketsphinx-aligner';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { SAMPLE_RATE, type Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { timeCorrections } from '../../src/service/transcription/correction-timing';
import { applyCorrections, correctLine } from '../../src/service/transcription/text-corrections';
import { spreadByWeight } from '../../src/service/transcription/word-correction';
import { readAsrSet } from '../lib/asr-set';
import { flagValue } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const asrDir = path.join(sharedDir, 'audio/asr');
const verbose = process.argv.includes('--verbose');
const limit = Number(flagValue('--limit') ?? Infinity);

interface Row {
  half: string;
  /** |Δ| of start and end per aligned word, and the same words spread by syllables. */
  aligned: number[];
  spread: number[];
  changed: number;
  interpolated: number;
  ms: number;
}

const quantile = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function main() {
  const tools = resolveMediaTools();
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer({ workers: 1 });
  const aligner = createPocketSphinxAligner({ pronounceUnknown: true });
  const rows: Row[] = [];
  let skipped = 0;
  let failed = 0;
  // --limit N: N clips per half, evenly spaced through the set, so every source is represented.
  const set = readAsrSet(asrDir);
  const picked = (['tune', 'test'] as const).flatMap((half) => {
    const files = set.filter((f) => f.half === half);
    const n = Math.min(files.length, limit);
    return Array.from({ length: n }, (_, i) => files[Math.floor((i * files.length) / n)]!);
  });
  try {
    for (const f of picked) {
      const file = path.join(asrDir, f.file);
      const transcript = await transcribeFile(file, { tools, vad, recognizer }).catch((error: Error) => {
        // A decoder timing out on a starved machine loses the clip, not the run.
        console.error(`${f.file}: ${error.message}`);
        failed++;
        return null;
      });
      if (!transcript) continue;
      if (transcript.segments.length !== 1 || !transcript.segments[0]!.words.length) {
        skipped++;
        continue;
      }
      const pcm = await decodeAudioToArray(file, tools);
      const audio = async (spans: readonly Span[]) => spans.map((s) => pcm.slice(Math.floor(s.start * SAMPLE_RATE), Math.ceil(s.end * SAMPLE_RATE)));
      const first = correctLine(transcript, { segmentId: transcript.segments[0]!.id, text: f.reference });
      const t0 = performance.now();
      const timed = await timeCorrections(transcript, [first], aligner, audio);
      const ms = performance.now() - t0;
      const correction = timed.corrections[0]!;
      const { transcript: corrected, records } = applyCorrections(transcript, timed.corrections, timed.timings);
      const words = corrected.segments[0]!.words;
      const full = await aligner.align(pcm, f.reference);
      if (full.length !== words.length) {
        skipped++;
        continue;
      }
      const row: Row = { half: f.half, aligned: [], spread: [], changed: 0, interpolated: records[0]!.interpolated.length, ms };
      const alignedSet = new Set(records[0]!.aligned);
      correction.plan.gaps.forEach((gap) => {
        const spread = spreadByWeight(correction.next.slice(gap.from, gap.to), gap.window);
        for (let j = gap.from; j < gap.to; j++) {
          row.changed++;
          // Only words the yardstick decoded (confidence > 0) are a yardstick.
          if (!alignedSet.has(j) || full[j]!.confidence === 0) continue;
          row.aligned.push(Math.abs(words[j]!.start - full[j]!.start), Math.abs(words[j]!.end - full[j]!.end));
          const s = spread[j - gap.from]!;
          row.spread.push(Math.abs(s.start - full[j]!.start), Math.abs(s.end - full[j]!.end));
        }
      });
      rows.push(row);
      if (verbose) {
        console.log(`${f.file}\t${f.half}\tchanged ${row.changed}\taligned ${row.aligned.length / 2}\tinterp ${row.interpolated}\tmedian ${quantile(row.aligned, 0.5).toFixed(3)}\t${ms.toFixed(0)} ms`);
      }
    }
  } finally {
    await recognizer.close();
    await vad.close();
    await aligner.close();
  }
  console.log(`clips corrected: ${rows.length} (skipped ${skipped}: several lines, or the yardstick had another word count; failed to transcribe ${failed})`);
  console.log('half  clips  changed  aligned  interpolated  |Δ| median (aligned / spread)  |Δ| p90 (aligned / spread)  timing ms/clip median');
  for (const half of ['tune', 'test']) {
    const rs = rows.filter((r) => r.half === half);
    const aligned = rs.flatMap((r) => r.aligned);
    const spread = rs.flatMap((r) => r.spread);
    console.log(
      [
        half.padEnd(5),
        String(rs.length).padStart(5),
        String(rs.reduce((n, r) => n + r.changed, 0)).padStart(8),
        String(aligned.length / 2).padStart(8),
        String(rs.reduce((n, r) => n + r.interpolated, 0)).padStart(13),
        `${quantile(aligned, 0.5).toFixed(3)} s / ${quantile(spread, 0.5).toFixed(3)} s`.padStart(30),
        `${quantile(aligned, 0.9).toFixed(3)} s / ${quantile(spread, 0.9).toFixed(3)} s`.padStart(27),
        quantile(rs.map((r) => r.ms), 0.5).toFixed(0).padStart(10),
      ].join('  '),
    );
  }
}

void main();
