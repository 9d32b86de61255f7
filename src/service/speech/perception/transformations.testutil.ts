/**
 * Test fixtures for the listener's validation: real LJSpeech lines and copies of a line transformed in a
 * known direction — time-compressed 1.3× with pitch kept (ffmpeg atempo), pitch movement flattened (Praat
 * PSOLA resynthesis on a constant pitch tier), long pauses and a filler inserted, attenuated and low-passed —
 * joined into one recording with one speaker, with word timings from forced alignment of the reference text
 * (moved by the known transformation for the copies).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { audioDir } from '../../../../test/helpers/paths';
import { whiteNoise } from '../../../../test/helpers/signals';
import { createPocketSphinxAligner } from '../alignment/pocketsphinx-aligner';
import type { LineInput } from '../../analysis/protocol';
import { SAMPLE_RATE } from '../types';

export const VARIANTS = ['original', 'rushed', 'flat', 'hesitant', 'quiet'] as const;
export type Variant = (typeof VARIANTS)[number];

export const COMPRESSION = 1.3;
export const ATTENUATION_DB = 12;
export const LOWPASS_HZ = 1000;
export const INSERTED_PAUSE = 0.9;
export const FILLER_SECONDS = 0.45;
const GAP = 0.8;
const NOISE_DBFS = -70;

type Word = { word: string; start: number; end: number };
interface Clip {
  pcm: Float32Array;
  words: Word[];
  text: string;
  name: string;
  variant: Variant | 'context';
}

function refs(): Map<string, string> {
  const rows = fs.readFileSync(path.join(audioDir, 'asr', 'refs.tsv'), 'utf8').trim().split('\n').slice(1);
  return new Map(rows.map((r) => r.split('\t')).map(([file, , text]) => [file!.replace(/\.flac$/, ''), text!]));
}

/** 16 kHz mono float PCM out of ffmpeg run with `args` (over `input`'s PCM when given). */
export function ffmpegPcm(args: string[], input?: Float32Array): Float32Array {
  const pre = input ? ['-f', 'f32le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', 'pipe:0'] : [];
  const r = spawnSync('ffmpeg', ['-v', 'error', ...pre, ...args, '-f', 'f32le', '-ar', String(SAMPLE_RATE), '-ac', '1', 'pipe:1'], {
    input: input ? Buffer.from(input.buffer, input.byteOffset, input.byteLength) : undefined,
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(String(r.stderr));
  const b = r.stdout;
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** 16 kHz mono float PCM written as a 16-bit WAV. */
export function writeWav(file: string, pcm: Float32Array): void {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-y', '-f', 'f32le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', 'pipe:0', '-c:a', 'pcm_s16le', file], {
    input: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength),
  });
  if (r.status !== 0) throw new Error(String(r.stderr));
}

/** Praat: the same line resynthesised (PSOLA) on a pitch tier held at its mean, so only the melody goes. */
const FLATTEN_SCRIPT = `form Flatten
  sentence infile
  sentence outfile
endform
sound = Read from file: infile$
manipulation = To Manipulation: 0.01, 75, 600
tier = Extract pitch tier
mean = Get mean (points): 0, 0
Remove points between: 0, 10000
Add point: 0.01, mean
selectObject: manipulation, tier
Replace pitch tier
selectObject: manipulation
result = Get resynthesis (overlap-add)
Save as WAV file: outfile$
`;

function flatten(dir: string, pcm: Float32Array): Float32Array {
  const script = path.join(dir, 'flatten.praat');
  fs.writeFileSync(script, FLATTEN_SCRIPT);
  const input = path.join(dir, 'flat-in.wav');
  const output = path.join(dir, 'flat-out.wav');
  writeWav(input, pcm);
  const r = spawnSync('praat', ['--run', script, input, output]);
  if (r.status !== 0) throw new Error(`praat: ${String(r.stderr)}`);
  return ffmpegPcm(['-i', output]).subarray(0, pcm.length);
}

/** A steady "uh": harmonics of a held F0 shaped by schwa formants (500, 1500, 2500 Hz), faded in and out. */
function filler(f0: number, level: number): Float32Array {
  const n = Math.round(FILLER_SECONDS * SAMPLE_RATE);
  const out = new Float32Array(n);
  const formants = [500, 1500, 2500];
  for (let h = 1; h * f0 < 4000; h++) {
    const f = h * f0;
    const gain = formants.reduce((g, fc, k) => g + 0.5 ** k / (1 + ((f - fc) / 120) ** 2), 0) / h ** 0.5;
    for (let i = 0; i < n; i++) out[i] = out[i]! + gain * Math.sin((2 * Math.PI * f * i) / SAMPLE_RATE);
  }
  const fade = Math.round(0.03 * SAMPLE_RATE);
  let peak = 0;
  for (const x of out) peak = Math.max(peak, Math.abs(x));
  for (let i = 0; i < n; i++) out[i] = (out[i]! / peak) * level * Math.min(1, i / fade, (n - 1 - i) / fade);
  return out;
}

/** Long pauses after about a quarter and three quarters of the words, and "uh" plus a pause at the middle. */
function hesitate(pcm: Float32Array, words: Word[], fillerHz: number): { pcm: Float32Array; words: Word[] } {
  const k = words.length;
  const cuts = [Math.floor(k / 4), Math.floor(k / 2), Math.floor((3 * k) / 4)].filter((i, j, a) => i > 0 && i < k && a.indexOf(i) === j);
  let peak = 0;
  for (const x of pcm) peak = Math.max(peak, Math.abs(x));
  const pieces: Float32Array[] = [];
  const out: Word[] = [];
  let from = 0;
  let shift = 0;
  let taken = 0;
  cuts.forEach((cut, j) => {
    const at = (words[cut - 1]!.end + words[cut]!.start) / 2;
    const sample = Math.round(at * SAMPLE_RATE);
    pieces.push(pcm.subarray(from, sample));
    for (; taken < cut; taken++) out.push({ ...words[taken]!, start: words[taken]!.start + shift, end: words[taken]!.end + shift });
    if (j === 1) {
      pieces.push(filler(fillerHz, 0.3 * peak));
      out.push({ word: 'uh', start: at + shift, end: at + shift + FILLER_SECONDS });
      shift += FILLER_SECONDS;
    }
    pieces.push(new Float32Array(Math.round(INSERTED_PAUSE * SAMPLE_RATE)));
    shift += INSERTED_PAUSE;
    from = sample;
  });
  pieces.push(pcm.subarray(from));
  for (; taken < k; taken++) out.push({ ...words[taken]!, start: words[taken]!.start + shift, end: words[taken]!.end + shift });
  const joined = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of pieces) joined.set(p, (o += p.length) - p.length);
  return { pcm: joined, words: out };
}

export interface TransformedRecording {
  file: string;
  lines: LineInput[];
  /** Line id of each (target, variant). */
  ids: Map<string, number>;
}

/**
 * One recording: the context lines, then for each target its original and its four transformed copies, GAP
 * apart, faint white noise (−70 dBFS) under everything so inserted pauses sound like the room. The filler
 * is held at `fillerHz`, near the reader's median pitch.
 */
export async function buildTransformedRecording(dir: string, context: string[], targets: string[], fillerHz: number): Promise<TransformedRecording> {
  const texts = refs();
  const aligner = createPocketSphinxAligner();
  const clips: Clip[] = [];
  try {
    const load = async (name: string) => {
      const pcm = ffmpegPcm(['-i', path.join(audioDir, 'asr', `${name}.flac`)]);
      const text = texts.get(name)!;
      const words = (await aligner.align(pcm, text)).map((w) => ({ word: w.word, start: w.start, end: w.end }));
      return { pcm, words, text };
    };
    for (const name of context) clips.push({ ...(await load(name)), name, variant: 'context' });
    for (const name of targets) {
      const o = await load(name);
      clips.push({ ...o, name, variant: 'original' });
      const fast = ffmpegPcm(['-af', `atempo=${COMPRESSION}`], o.pcm);
      clips.push({ pcm: fast, text: o.text, name, variant: 'rushed', words: o.words.map((w) => ({ ...w, start: w.start / COMPRESSION, end: w.end / COMPRESSION })) });
      clips.push({ pcm: flatten(dir, o.pcm), text: o.text, name, variant: 'flat', words: o.words });
      const h = hesitate(o.pcm, o.words, fillerHz);
      clips.push({ pcm: h.pcm, text: o.text, name, variant: 'hesitant', words: h.words });
      const quiet = ffmpegPcm(['-af', `volume=-${ATTENUATION_DB}dB,lowpass=f=${LOWPASS_HZ},lowpass=f=${LOWPASS_HZ}`], o.pcm);
      clips.push({ pcm: quiet, text: o.text, name, variant: 'quiet', words: o.words });
    }
  } finally {
    await aligner.close();
  }
  const gap = Math.round(GAP * SAMPLE_RATE);
  const total = clips.reduce((n, c) => n + c.pcm.length + gap, gap);
  const pcm = whiteNoise(total, 10 ** (NOISE_DBFS / 20), 7);
  const lines: LineInput[] = [];
  const ids = new Map<string, number>();
  let at = gap;
  clips.forEach((c, id) => {
    for (let i = 0; i < c.pcm.length; i++) pcm[at + i] = pcm[at + i]! + c.pcm[i]!;
    const offset = at / SAMPLE_RATE;
    const words = c.words.map((w) => ({ word: w.word, start: +(offset + w.start).toFixed(3), end: +(offset + w.end).toFixed(3) }));
    lines.push({ id, speaker: 'S1', start: +offset.toFixed(3), end: +(offset + c.pcm.length / SAMPLE_RATE).toFixed(3), text: words.map((w) => w.word).join(' '), words });
    if (c.variant !== 'context') ids.set(`${c.name}:${c.variant}`, id);
    at += c.pcm.length + gap;
  });
  const file = path.join(dir, `transformed-${targets[0]}.wav`);
  writeWav(file, pcm);
  return { file, lines, ids };
}
