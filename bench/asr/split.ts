/**
 * Would cutting a recording's last chunk in two, one piece per decoder, keep the accuracy? On short files
 * the pipeline's wall time is one decoder on one chunk while the other core idles (bench/asr/README.md,
 * "Per-request start-up"), so a cut would halve it. This decodes every file of the ASR set with the
 * service's recognizer (two decoders) as the pipeline chunks it, and again with its last chunk (when at
 * least --min seconds) cut in two by each scheme; WER per half and per source, all in one run.
 *
 *   node --import tsx bench/asr/split.ts [--min 4] [--schemes gap:0,gap:0.5,quiet:0.5,quiet:1]
 *
 * Schemes are `where:overlap`. `gap` cuts in the VAD pause (≥ 0.3 s) nearest the middle of the chunk,
 * within its middle half, and leaves chunks with none whole; `quiet` cuts at the lowest short-time energy
 * within its middle 40 % (splitAtQuietPoints). Each piece reaches `overlap` seconds past the cut and the
 * words are stitched at the cut by their midpoints, so a word near the cut is decoded with context on both
 * sides. Also printed: the longer piece against the chunk (the decode's critical path), pooled over cuts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { levelledRecording } from '../../src/service/speech/pipeline/levelled-blocks';
import { resolveMediaTools } from '../../src/service/media/tools';
import { ChunkMerger, splitAtQuietPoints } from '../../src/service/speech/pipeline/chunks';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { SAMPLE_RATE, type RecognizedWord, type Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { readAsrSet } from '../lib/asr-set';
import { flagValue } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const arg = (name: string, fallback: string) => flagValue(name) ?? fallback;
const minSeconds = Number(arg('--min', '4'));
const schemes = arg('--schemes', 'gap:0,gap:0.5,quiet:0.5,quiet:1').split(',').map((s) => {
  const [where, overlap] = s.split(':');
  if (where !== 'gap' && where !== 'quiet') throw new Error(`unknown scheme ${s}`);
  return { name: s, where: where as 'gap' | 'quiet', overlap: Number(overlap ?? 0) };
});

/** Where `scheme` cuts `chunk`, or null to leave it whole. */
function cutOf(where: 'gap' | 'quiet', pcm: Float32Array, chunk: Span, speech: readonly Span[]): number | null {
  const length = chunk.end - chunk.start;
  if (where === 'quiet') {
    const from = Math.round(chunk.start * SAMPLE_RATE);
    const pieces = splitAtQuietPoints(pcm.subarray(from, Math.round(chunk.end * SAMPLE_RATE)), chunk, {
      maxChunkSeconds: 0.7 * length,
      minFraction: 3 / 7,
    });
    return pieces.length > 1 ? pieces[0]!.end : null;
  }
  const inside = speech.filter((s) => s.start >= chunk.start - 1e-6 && s.end <= chunk.end + 1e-6);
  let best: number | null = null;
  for (let k = 1; k < inside.length; k++) {
    const cut = (inside[k - 1]!.end + inside[k]!.start) / 2;
    const at = (cut - chunk.start) / length;
    if (at > 0.25 && at < 0.75 && (best === null || Math.abs(at - 0.5) < Math.abs((best - chunk.start) / length - 0.5))) best = cut;
  }
  return best;
}

async function main(): Promise<void> {
  const tools = resolveMediaTools();
  const vad = createSileroVad();
  const recognizer = createPocketSphinxRecognizer();
  const words = async (pcm: Float32Array, span: Span): Promise<RecognizedWord[]> => {
    const samples = pcm.subarray(Math.round(span.start * SAMPLE_RATE), Math.round(span.end * SAMPLE_RATE));
    return (await recognizer.recognize(samples, { offset: span.start })).flatMap((s) => s.words);
  };
  const scores = new Map<string, WerResult[]>();
  const add = (scheme: string, key: string, result: WerResult) => scores.set(`${scheme}\t${key}`, [...(scores.get(`${scheme}\t${key}`) ?? []), result]);
  const critical = new Map<string, { longer: number; whole: number; cuts: number }>();
  try {
    for (const file of readAsrSet(asrDir)) {
      const pcm = await levelledRecording(await decodeAudioToArray(path.join(asrDir, file.file), tools));
      const speech = await vad.detect(pcm);
      const merger = new ChunkMerger();
      const chunks = speech.flatMap((s) => merger.push(s)).concat(merger.finish());
      const decoded = await Promise.all(chunks.map((c) => words(pcm, c)));
      const score = (scheme: string, ws: RecognizedWord[]) => {
        const result = wordErrorRate(file.reference, ws.map((w) => w.word).join(' '));
        add(scheme, file.half, result);
        add(scheme, `${file.source}/${file.half}`, result);
      };
      score('whole', decoded.flat());
      const last = chunks.at(-1);
      for (const scheme of schemes) {
        const cut = last && last.end - last.start >= minSeconds ? cutOf(scheme.where, pcm, last, speech) : null;
        if (!last || cut === null) {
          score(scheme.name, decoded.flat());
          continue;
        }
        const first = { start: last.start, end: Math.min(last.end, cut + scheme.overlap) };
        const second = { start: Math.max(last.start, cut - scheme.overlap), end: last.end };
        const [a, b] = await Promise.all([words(pcm, first), words(pcm, second)]);
        const mid = (w: RecognizedWord) => (w.start + w.end) / 2;
        score(scheme.name, [...decoded.slice(0, -1).flat(), ...a.filter((w) => mid(w) < cut), ...b.filter((w) => mid(w) >= cut)]);
        const p = critical.get(scheme.name) ?? { longer: 0, whole: 0, cuts: 0 };
        p.longer += Math.max(first.end - first.start, second.end - second.start);
        p.whole += last.end - last.start;
        p.cuts++;
        critical.set(scheme.name, p);
      }
    }
  } finally {
    await Promise.allSettled([vad.close(), recognizer.close()]);
  }
  console.log(`last chunk cut when ≥ ${minSeconds} s; WER (S/D/I of N words)`);
  for (const [key, results] of [...scores].sort(([a], [b]) => a.localeCompare(b))) {
    const t = sumWer(results);
    const [scheme, group] = key.split('\t');
    console.log(`${scheme!.padEnd(10)} ${group!.padEnd(20)} ${(100 * t.wer).toFixed(1).padStart(5)}%  ${t.substitutions}/${t.deletions}/${t.insertions} of ${t.referenceWords}`);
  }
  for (const [scheme, p] of critical) {
    console.log(`${scheme}: ${p.cuts} chunks cut; longer piece ${(100 * p.longer / p.whole).toFixed(0)}% of the chunk's length (pooled)`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
