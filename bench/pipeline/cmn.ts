/**
 * The CMN experiment: does carrying the recording's cepstral mean across VAD chunks help long-form
 * WER? Cuts long/ into the pipeline's chunks (Silero VAD, ChunkMerger, quiet-point splits; cached), then
 * decodes them in time order, alternately on two pocketsphinx_batch processes (as the pool does), with one
 * cepstral-mean scheme per run, and prints WER overall, per half (bench/lib/halves.ts) and per source.
 *
 *   nice -n 10 node --import tsx bench/pipeline/cmn.ts --cmn batch|raw|live|causal|whole [--tau 300] [--window 0]
 *
 * - raw: what ships (audio in, the model's feat.params: batch CMN over each chunk).
 * - live: audio in, `-cmn live` through a copied feat.params (the command line cannot override the model's):
 *   each process normalises a chunk by the running mean of the chunks it decoded before (the model's
 *   `-cmninit` for its first), as pocketsphinx_continuous carries its mean along a file.
 * - batch / causal / whole: features from `sphinx_fe` (Debian's sphinxbase-utils, same feat.params), the mean
 *   subtracted here, decoded with `-cmn none`. batch = each chunk's own mean (the shipped scheme on features);
 *   causal = MAP estimate (chunk sums + tau frames of the mean of all earlier chunks' speech frames, optionally
 *   decayed to `--window` frames); whole = the same with the whole recording's mean as the prior (two-pass).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { levelledRecording } from '../../src/service/speech/pipeline/levelled-blocks';
import { resolveMediaTools } from '../../src/service/media/tools';
import { ChunkMerger, splitAtQuietPoints } from '../../src/service/speech/pipeline/chunks';
import { RECOGNITION_ARGS } from '../../src/service/speech/recognition/pocketsphinx/decoder-args';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { parseHypsegLine } from '../../src/service/speech/recognition/pocketsphinx/output';
import { float32ToInt16Le } from '../../src/service/speech/recognition/pocketsphinx/pcm';
import { sumWer, wordErrorRate, type WerResult } from '../../src/service/speech/scoring/wer';
import { SAMPLE_RATE } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { halves, sourceOf } from '../lib/halves';
import { childrenCpuSeconds } from '../lib/proc-cpu';
import { flagValue } from '../lib/args';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const longDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/long');
const flag = (name: string, fallback: string) => flagValue(name) ?? fallback;
const scheme = flag('--cmn', 'raw');
const tau = Number(flag('--tau', '300'));
const windowFrames = Number(flag('--window', '0'));
const bySource = process.argv.includes('--by-source');
const cache = path.join(os.tmpdir(), 'takeline-cmn-bench-v1');
const DIM = 13;

interface Chunk {
  id: string;
  start: number;
}

async function prepareChunks(): Promise<Chunk[]> {
  const index = path.join(cache, 'chunks.json');
  if (existsSync(index)) return JSON.parse(readFileSync(index, 'utf8')) as Chunk[];
  mkdirSync(path.join(cache, 'raw'), { recursive: true });
  const pcm = await levelledRecording(await decodeAudioToArray(path.join(longDir, 'read_speech_concat.flac'), resolveMediaTools()));
  const vad = createSileroVad();
  const merger = new ChunkMerger();
  const spans = (await vad.detect(pcm)).flatMap((s) => merger.push(s)).concat(merger.finish());
  await vad.close();
  const chunks: Chunk[] = [];
  for (const span of spans) {
    const a = Math.round(span.start * SAMPLE_RATE);
    for (const piece of splitAtQuietPoints(pcm.subarray(a, Math.round(span.end * SAMPLE_RATE)), span)) {
      const id = `k${String(chunks.length).padStart(4, '0')}`;
      const pa = Math.round(piece.start * SAMPLE_RATE);
      const pb = Math.min(pcm.length, Math.round(piece.end * SAMPLE_RATE));
      writeFileSync(path.join(cache, 'raw', `${id}.raw`), float32ToInt16Le(pcm.subarray(pa, pb)));
      chunks.push({ id, start: pa / SAMPLE_RATE });
    }
  }
  // Features as the decoder computes them from audio (same feat.params), for the schemes normalised here.
  writeFileSync(path.join(cache, 'ctl'), chunks.map((c) => c.id).join('\n') + '\n');
  mkdirSync(path.join(cache, 'mfc'), { recursive: true });
  const model = resolvePocketSphinxModel();
  execFileSync('sphinx_fe', [
    ...['-argfile', path.join(model.hmm, 'feat.params'), '-samprate', '16000', '-raw', 'yes', '-input_endian', 'little'],
    ...['-c', path.join(cache, 'ctl'), '-di', path.join(cache, 'raw'), '-ei', 'raw', '-do', path.join(cache, 'mfc'), '-eo', 'mfc'],
  ], { stdio: 'ignore' });
  writeFileSync(index, JSON.stringify(chunks));
  return chunks;
}

function readMfc(file: string): Float32Array {
  const b = readFileSync(file);
  const out = new Float32Array(b.readInt32LE(0));
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(4 + 4 * i);
  return out;
}

/** Sum and count of the frames batch CMN averages (c0 ≥ 0, as sphinxbase's cmn.c skips the rest). */
function speechSums(f: Float32Array): { sum: Float64Array; n: number } {
  const sum = new Float64Array(DIM);
  let n = 0;
  for (let t = 0; t * DIM < f.length; t++) {
    if (f[t * DIM]! < 0) continue;
    for (let j = 0; j < DIM; j++) sum[j]! += f[t * DIM + j]!;
    n++;
  }
  return { sum, n };
}

/** Writes each chunk's features minus the scheme's mean into `dir`. */
function normalise(chunks: Chunk[], dir: string, keyOf: (c: Chunk) => string): void {
  const feats = chunks.map((c) => readMfc(path.join(cache, 'mfc', `${c.id}.mfc`)));
  const stats = feats.map(speechSums);
  const whole = new Float64Array(DIM);
  let wholeN = 0;
  for (const s of stats) {
    for (let j = 0; j < DIM; j++) whole[j]! += s.sum[j]!;
    wholeN += s.n;
  }
  const priors = new Map<string, { sum: Float64Array; n: number }>();
  chunks.forEach((c, k) => {
    const f = feats[k]!;
    const { sum, n } = stats[k]!;
    const key = keyOf(c);
    if (!priors.has(key)) priors.set(key, { sum: new Float64Array(DIM), n: 0 });
    const p = priors.get(key)!;
    const prior = p.sum;
    let priorN = p.n;
    const mean = new Float64Array(DIM);
    for (let j = 0; j < DIM; j++) {
      if (scheme === 'causal' && priorN > 0) mean[j] = (sum[j]! + (tau * prior[j]!) / priorN) / (n + tau);
      else if (scheme === 'whole') mean[j] = (sum[j]! + (tau * whole[j]!) / wholeN) / (n + tau);
      else mean[j] = sum[j]! / Math.max(1, n);
    }
    for (let j = 0; j < DIM; j++) prior[j]! += sum[j]!;
    priorN += n;
    if (windowFrames > 0 && priorN > windowFrames) {
      for (let j = 0; j < DIM; j++) prior[j]! *= windowFrames / priorN;
      priorN = windowFrames;
    }
    p.n = priorN;
    const b = Buffer.alloc(4 + 4 * f.length);
    b.writeInt32LE(f.length, 0);
    for (let i = 0; i < f.length; i++) b.writeFloatLE(f[i]! - mean[i % DIM]!, 4 + 4 * i);
    writeFileSync(path.join(dir, `${c.id}.mfc`), b);
  });
}

function decode(ids: string[], work: string, k: number, input: { dir: string; ext: string; adc: boolean }, args: string[]): Promise<string> {
  const model = resolvePocketSphinxModel();
  writeFileSync(path.join(work, `ctl${k}`), ids.join('\n') + '\n');
  const argv = [
    ...['-hmm', model.hmm, '-lm', model.lm, '-dict', model.dict, '-ctl', path.join(work, `ctl${k}`)],
    ...(input.adc ? ['-adcin', 'yes'] : []),
    ...['-cepdir', input.dir, '-cepext', input.ext, '-hypseg', path.join(work, `hypseg${k}`), '-logfn', path.join(work, `log${k}`)],
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(model.batch, argv, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(readFileSync(path.join(work, `hypseg${k}`), 'utf8')) : reject(new Error(`pocketsphinx_batch exit ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const chunks = await prepareChunks();
  const model = resolvePocketSphinxModel();
  const work = mkdtempSync(path.join(os.tmpdir(), 'takeline-cmn-run-'));
  try {
    const params = (cmn: string) => {
      const file = path.join(work, `feat-${cmn}.params`);
      writeFileSync(file, readFileSync(path.join(model.hmm, 'feat.params'), 'utf8').replace(/^-cmn \w+/m, `-cmn ${cmn}`));
      return file;
    };
    const refs = readFileSync(path.join(longDir, 'read_speech_concat.segments.tsv'), 'utf8')
      .split('\n').slice(1).filter(Boolean)
      .map((l) => l.split('\t'))
      .map(([s, e, file, text]) => ({ start: Number(s), end: Number(e), file: file!, text: text! }));
    // The chunk's source at its midpoint (oracle speakers), for --by-source.
    const keyOf = (c: Chunk) => {
      if (!bySource) return 'all';
      const mid = c.start + statSync(path.join(cache, 'raw', `${c.id}.raw`)).size / 2 / SAMPLE_RATE / 2;
      return sourceOf(refs.find((r) => mid >= r.start && mid < r.end)?.file ?? 'none');
    };
    const args = Object.entries(RECOGNITION_ARGS).flat();
    let input = { dir: path.join(cache, 'raw'), ext: '.raw', adc: true };
    if (scheme === 'live') args.push('-featparams', params('live'));
    else if (scheme !== 'raw') {
      input = { dir: path.join(work, 'mfc'), ext: '.mfc', adc: false };
      mkdirSync(input.dir);
      normalise(chunks, input.dir, keyOf);
      args.push('-featparams', params('none'));
    }
    const shares: string[][] = [[], []];
    chunks.forEach((c, i) => shares[i % 2]!.push(c.id));
    const cpu0 = childrenCpuSeconds();
    const outs = await Promise.all(shares.map((ids, k) => decode(ids, work, k, input, args)));
    const cpu = childrenCpuSeconds() - cpu0;

    const start = new Map(chunks.map((c) => [c.id, c.start]));
    const words: { word: string; t: number }[] = [];
    for (const line of outs.join('\n').split('\n').filter(Boolean)) {
      const utt = parseHypsegLine(line);
      for (const tok of utt.tokens) {
        if (tok.token.startsWith('<') || tok.token.startsWith('[')) continue;
        const t = start.get(utt.uttid)! + (tok.startFrame + tok.endFrame + 1) / 200;
        words.push({ word: tok.token.replace(/\(\d+\)$/, ''), t });
      }
    }
    // The two processes' outputs interleave in time: words in order before they are placed.
    words.sort((a, b) => a.t - b.t);
    const half = halves(refs.map((r) => r.file));
    const scored = refs.map((r) => ({
      source: sourceOf(r.file),
      half: half.get(r.file)!,
      first5: r.end <= 299.7,
      result: wordErrorRate(r.text, words.filter((w) => w.t >= r.start && w.t < r.end).map((w) => w.word).join(' ')),
    }));
    const fmt = (list: { result: WerResult }[]) => {
      const s = sumWer(list.map((x) => x.result));
      return `${(s.wer * 100).toFixed(2)}% ${s.substitutions}/${s.deletions}/${s.insertions} of ${s.referenceWords}`;
    };
    console.log(`scheme ${scheme}${scheme === 'causal' || scheme === 'whole' ? ` tau ${tau} window ${windowFrames}${bySource ? ' by source' : ''}` : ''}; ${chunks.length} chunks; decoder CPU ${cpu.toFixed(1)} s`);
    console.log(`all   ${fmt(scored)} | tune ${fmt(scored.filter((x) => x.half === 'tune'))} | test ${fmt(scored.filter((x) => x.half === 'test'))}`);
    console.log(`first 5 min ${fmt(scored.filter((x) => x.first5))}`);
    for (const source of new Set(scored.map((x) => x.source))) {
      const of = scored.filter((x) => x.source === source);
      console.log(`  ${source.padEnd(13)} tune ${fmt(of.filter((x) => x.half === 'tune'))} | test ${fmt(of.filter((x) => x.half === 'test'))}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
