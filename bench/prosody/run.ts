/**
 * The prosody measures against Praat itself (Debian's praat, `praat --run measure.praat <file>`) on
 * ../shared/audio/prosody (13 clips, 44.1 kHz) and ../shared/audio/asr (121 clips, 16 kHz): pitch median,
 * jitter (local), shimmer (local) and HNR (cc) per clip, the pitch track frame by frame (against the stored
 * reference tracks in prosody/praat_pitch_75_600Hz and against Praat's track of every clip), and the cost
 * of `measureProsody` per audio second over the lines of ../shared/audio/long (13.8 min).
 *
 *   nice -n 10 node --import tsx bench/prosody/run.ts [--set prosody,asr] [--every N] [--no-table] [--no-long]
 *
 * Halves: clips sorted by set and file name, alternately "tune" (even positions) and "test" (odd); every
 * setting was chosen looking at the tune half only; both halves are reported side by side.
 * Comparisons (see README.md): "16 kHz" = the audio the service analyses (ffmpeg's 16 kHz mono decode, the
 * same samples written as a float WAV for Praat) on both sides; "original" = each file at its own rate on
 * both sides; "service vs original" = ours on 16 kHz against Praat on the original file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudioToArray } from '../../src/service/media/decode';
import { resolveMediaTools } from '../../src/service/media/tools';
import { harmonicityTrack } from '../../src/service/speech/prosody/harmonicity';
import { measureProsody, type MeasuredProsody } from '../../src/service/speech/prosody/measure';
import { pitchTrack } from '../../src/service/speech/prosody/pitch';
import { periodicPulses } from '../../src/service/speech/prosody/pulses';
import { SAMPLE_RATE } from '../../src/service/speech/types';
import {
  agreement,
  clipValue,
  compareTracks,
  GROSS_ERROR,
  median,
  meetsTargets,
  percentile,
  poolTracks,
  TARGETS,
  type Agreement,
  type Frames,
  type Measures,
  type TrackAgreement,
} from './compare';
import { wavFile } from '../lib/wav';
import { mapLimit } from '../lib/map-limit';
import { flagValue as flag } from '../lib/args';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const audioDir = path.join(sharedDir, 'audio');

const sets = (flag('--set') ?? 'prosody,asr').split(',');
const every = Number(flag('--every') ?? 1);
const printTable = !process.argv.includes('--no-table');
const runLong = !process.argv.includes('--no-long');
const tools = resolveMediaTools();

type Half = 'tune' | 'test';
interface Clip {
  set: string;
  file: string;
  path: string;
  half: Half;
}

function listClips(): Clip[] {
  const clips: Clip[] = [];
  for (const set of ['prosody', 'asr']) {
    const dir = path.join(audioDir, set);
    const files = readdirSync(dir)
      .filter((f) => /\.(wav|flac)$/.test(f))
      .sort();
    for (const file of files) clips.push({ set, file, path: path.join(dir, file), half: 'tune' });
  }
  clips.forEach((c, i) => (c.half = i % 2 === 0 ? 'tune' : 'test'));
  return clips.filter((c) => sets.includes(c.set)).filter((_, i) => i % every === 0);
}

function run(cmd: string, args: string[], binary = false): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { encoding: 'buffer', maxBuffer: 1 << 30 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${cmd} ${args.join(' ')}: ${error.message}\n${stderr.toString()}`)) : resolve(binary ? stdout : stdout),
    ),
  );
}

/** The file at its own sample rate, mono float32 (ffmpeg downmix, no resampling). */
async function decodeOriginal(file: string): Promise<{ pcm: Float32Array; rate: number }> {
  const probe = (await run(tools.ffprobe, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=sample_rate', '-of', 'csv=p=0', file])).toString().trim();
  const rate = Number(probe);
  const raw = await run(tools.ffmpeg, ['-nostdin', '-loglevel', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-f', 'f32le', '-acodec', 'pcm_f32le', 'pipe:1'], true);
  return { pcm: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)), rate };
}

/** A mono 32-bit float WAV of exactly these samples (Praat reads it without conversion). */
function floatWav(pcm: Float32Array, rate: number): Buffer {
  return wavFile(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), rate, 'float32');
}

interface PraatResult {
  measures: Measures;
  track: Frames;
}

async function praat(file: string): Promise<PraatResult> {
  const out = (await run('praat', ['--run', path.join(here, 'measure.praat'), file])).toString().trim().split('\n');
  const num = (s: string | undefined) => (s === undefined || s.startsWith('--undefined--') ? null : Number(s));
  const [pitch, jitter, shimmer, hnr] = out[0]!.split('\t').map(num);
  const times: number[] = [];
  const f0: number[] = [];
  for (const line of out.slice(1)) {
    const [t, f] = line.split('\t');
    times.push(Number(t));
    f0.push(Number(f));
  }
  return { measures: { pitch: pitch ?? null, jitter: jitter ?? null, shimmer: shimmer ?? null, hnr: hnr ?? null }, track: { times, f0 } };
}

function ours(m: MeasuredProsody): Measures {
  return { pitch: m.pitch_hz, jitter: m.pitch_perturbation, shimmer: m.amplitude_perturbation, hnr: m.hnr_db };
}

function framesOf(m: MeasuredProsody): Frames {
  const times = Array.from(m.track.f0, (_, i) => m.track.start + i * m.track.timeStep);
  return { times, f0: m.track.f0 };
}

/** One line per clip here: every clip of these sets is a single utterance. */
function measureClip(pcm: Float32Array, rate: number): { measures: Measures; result: MeasuredProsody } {
  const duration = pcm.length / rate;
  const result = measureProsody(pcm, rate, { start: 0, end: duration });
  const line = (value: number | null) => clipValue([{ duration, value }]);
  const m = ours(result);
  return { measures: { pitch: line(m.pitch), jitter: line(m.jitter), shimmer: line(m.shimmer), hnr: line(m.hnr) }, result };
}

interface ClipResult {
  clip: Clip;
  rate: number;
  duration: number;
  original: { mine: Measures; praat: Measures; track: TrackAgreement };
  at16k: { mine: Measures; praat: Measures; track: TrackAgreement };
  /** Against the stored reference track (prosody set only). */
  reference: TrackAgreement | null;
}

function readReferenceTrack(file: string): Frames | null {
  const tsv = path.join(audioDir, 'prosody/praat_pitch_75_600Hz', file.replace(/\.wav$/, '.pitch.tsv'));
  let text: string;
  try {
    text = readFileSync(tsv, 'utf8');
  } catch {
    return null;
  }
  const rows = text.trim().split('\n').slice(1).map((l) => l.split('\t'));
  return { times: rows.map((r) => Number(r[0])), f0: rows.map((r) => (r[1] === '--undefined--' ? 0 : Number(r[1]))) };
}

async function measureAll(clips: Clip[], tmp: string): Promise<ClipResult[]> {
  let done = 0;
  return mapLimit(clips, 2, async (clip) => {
    const { pcm, rate } = await decodeOriginal(clip.path);
    const original = measureClip(pcm, rate);
    const praatOriginal = await praat(clip.path);
    let at16k: ClipResult['at16k'];
    if (rate === SAMPLE_RATE) {
      at16k = { mine: original.measures, praat: praatOriginal.measures, track: compareTracks(framesOf(original.result), praatOriginal.track) };
    } else {
      const pcm16 = await decodeAudioToArray(clip.path, tools); // the service's own decode
      const wav = path.join(tmp, clip.file.replace(/\.\w+$/, '.16k.wav'));
      writeFileSync(wav, floatWav(pcm16, SAMPLE_RATE));
      const mine16 = measureClip(pcm16, SAMPLE_RATE);
      const praat16 = await praat(wav);
      at16k = { mine: mine16.measures, praat: praat16.measures, track: compareTracks(framesOf(mine16.result), praat16.track) };
    }
    const reference = readReferenceTrack(clip.file);
    done++;
    if (done % 20 === 0) process.stderr.write(`  ${done}/${clips.length} clips\n`);
    return {
      clip,
      rate,
      duration: pcm.length / rate,
      original: { mine: original.measures, praat: praatOriginal.measures, track: compareTracks(framesOf(original.result), praatOriginal.track) },
      at16k,
      reference: reference && clip.set === 'prosody' ? compareTracks(framesOf(original.result), reference) : null,
    };
  });
}

/** A percentage; differences too small for `digits` decimals show as 0 when exact, else in scientific notation. */
const pct = (x: number, digits = 1) => {
  if (!Number.isFinite(x)) return 'n/a';
  const p = 100 * x;
  if (p === 0 || Math.abs(p) >= 10 ** -digits) return `${p.toFixed(digits)}%`;
  return `${p.toExponential(1)}%`;
};
const fmt = (x: number | null, digits: number) => (x === null ? '—' : x.toFixed(digits));

const db = (x: number) => (!Number.isFinite(x) ? 'n/a' : x === 0 || x >= 0.001 ? x.toFixed(3) : x.toExponential(1));
const AGREEMENT_HEAD =
  '| comparison | clips | pitch within 3% (n) | pitch rel. diff, median / max | jitter rel. diff, median / max (n) | shimmer rel. diff, median / max (n) | HNR abs. diff dB, median / max (n) | defined on one side only | targets |\n|---|---|---|---|---|---|---|---|---|';

function agreementRow(label: string, a: Agreement): string {
  return `| ${label} | ${a.clips} | ${pct(a.pitchWithin3)} (${a.pitchClips}) | ${pct(a.pitchMedianRel, 3)} / ${pct(a.pitchMaxRel, 3)} | ${pct(a.jitterMedianRel, 2)} / ${pct(a.jitterMaxRel, 2)} (${a.jitterClips}) | ${pct(a.shimmerMedianRel, 2)} / ${pct(a.shimmerMaxRel, 2)} (${a.shimmerClips}) | ${db(a.hnrMedianAbsDb)} / ${db(a.hnrMaxAbsDb)} (${a.hnrClips}) | ${a.definedMismatch} | ${meetsTargets(a) ? 'met' : '**not met**'} |`;
}

function trackRow(label: string, t: TrackAgreement): string {
  const gross = t.errors.filter((e) => e > GROSS_ERROR).length;
  return `| ${label} | ${t.frames} | ${pct(t.voicingAgree / t.frames, 2)} | ${t.voicedBoth} | ${pct(median(t.errors), 4)} | ${pct(percentile(t.errors, 0.95), 4)} | ${pct(percentile(t.errors, 0.99), 3)} | ${pct(gross / t.voicedBoth, 2)} |`;
}

function printAgreement(results: ClipResult[]): void {
  const variants: Array<[string, (r: ClipResult) => { mine: Measures; praat: Measures } | null]> = [
    ['16 kHz (service input), both sides', (r) => r.at16k],
    ['original rate, both sides', (r) => r.original],
    ['service (16 kHz) vs Praat on the original', (r) => ({ mine: r.at16k.mine, praat: r.original.praat })],
  ];
  console.log(`\nClip-level agreement with ${praatVersion} (targets: pitch within 3% on ≥ ${pct(TARGETS.pitchWithin3, 0)} of clips; median relative difference ≤ ${pct(TARGETS.jitterMedianRel, 0)} for jitter and shimmer; median |ΔHNR| ≤ ${TARGETS.hnrMedianAbsDb} dB)\n`);
  console.log(AGREEMENT_HEAD);
  for (const [label, pick] of variants) {
    for (const half of ['tune', 'test'] as const) {
      const pairs = results.filter((r) => r.clip.half === half).map(pick).filter((p) => p !== null);
      console.log(agreementRow(`${label} / ${half}`, agreement(pairs)));
    }
    // The 44.1 kHz clips are where the variants differ.
    const prosody = results.filter((r) => r.clip.set === 'prosody').map(pick).filter((p) => p !== null);
    if (prosody.length) console.log(agreementRow(`${label} / prosody set only`, agreement(prosody)));
  }
}

function printTracks(results: ClipResult[]): void {
  console.log('\nPitch track frame by frame (frames paired by time; F0 error = |ours − Praat| / Praat over frames voiced in both; gross = error > 20%)\n');
  console.log('| track / half | frames | voicing agreement | voiced in both | median F0 error | 95th pct | 99th pct | gross errors |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const half of ['tune', 'test'] as const) {
    const refs = results.filter((r) => r.clip.half === half && r.reference).map((r) => r.reference!);
    if (refs.length) console.log(trackRow(`stored reference tracks (praat_pitch_75_600Hz, 44.1 kHz) / ${half}`, poolTracks(refs)));
  }
  for (const half of ['tune', 'test'] as const) {
    const sel = results.filter((r) => r.clip.half === half);
    console.log(trackRow(`Praat's track, 16 kHz, all clips / ${half}`, poolTracks(sel.map((r) => r.at16k.track))));
    console.log(trackRow(`Praat's track, original rate, all clips / ${half}`, poolTracks(sel.map((r) => r.original.track))));
  }
}

function printClipTable(results: ClipResult[]): void {
  console.log('\nPer clip, 16 kHz on both sides (ours / Praat)\n');
  console.log('| clip | half | s | pitch Hz | jitter | shimmer | HNR dB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    const { mine, praat } = r.at16k;
    console.log(
      `| ${r.clip.set}/${r.clip.file} | ${r.clip.half} | ${r.duration.toFixed(2)} | ${fmt(mine.pitch, 2)} / ${fmt(praat.pitch, 2)} | ${fmt(mine.jitter, 5)} / ${fmt(praat.jitter, 5)} | ${fmt(mine.shimmer, 4)} / ${fmt(praat.shimmer, 4)} | ${fmt(mine.hnr, 2)} / ${fmt(praat.hnr, 2)} |`,
    );
  }
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** measureProsody over every line of the 13.8-minute concatenation, as the analysis job runs it. */
async function longFile(results: ClipResult[]): Promise<void> {
  const file = path.join(audioDir, 'long/read_speech_concat.flac');
  const rows = readFileSync(path.join(audioDir, 'long/read_speech_concat.segments.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  const pcm = await decodeAudioToArray(file, tools);
  const duration = pcm.length / SAMPLE_RATE;
  const lines = rows.map((r) => ({ start: Number(r[0]), end: Number(r[1]), source: r[2]! }));
  const byFile = new Map(results.map((r) => [r.clip.file, r]));
  const runs: number[] = [];
  let measured: MeasuredProsody[] = [];
  for (let rep = 0; rep < 3; rep++) {
    const t0 = cpuMs();
    measured = lines.map((l) => measureProsody(pcm, SAMPLE_RATE, l));
    runs.push(cpuMs() - t0);
  }
  const ms = median(runs);
  const lineSeconds = lines.reduce((s, l) => s + (l.end - l.start), 0);
  console.log(`\nCost: measureProsody over the ${lines.length} lines of long/ (${duration.toFixed(1)} s of 16 kHz audio), one core, CPU time, median of 3 runs`);
  console.log(`  ${(ms / 1000).toFixed(2)} CPU s → ${(ms / lineSeconds).toFixed(2)} ms per audio second = ${(ms / 1000 / lineSeconds).toFixed(4)} × real time (runs: ${runs.map((r) => (r / 1000).toFixed(2)).join(', ')} s)`);
  // Where the time goes: the three analyses on their own over the same lines.
  const stage = { pitch: 0, pulses: 0, harmonicity: 0 };
  for (const l of lines) {
    const line = pcm.subarray(Math.round(l.start * SAMPLE_RATE), Math.round(l.end * SAMPLE_RATE));
    let t = cpuMs();
    const track = pitchTrack(line, SAMPLE_RATE);
    stage.pitch += cpuMs() - t;
    t = cpuMs();
    periodicPulses(line, SAMPLE_RATE, track);
    stage.pulses += cpuMs() - t;
    t = cpuMs();
    harmonicityTrack(line, SAMPLE_RATE);
    stage.harmonicity += cpuMs() - t;
  }
  console.log(`  of which pitch ${(stage.pitch / lineSeconds).toFixed(2)}, pulses ${(stage.pulses / lineSeconds).toFixed(2)}, harmonicity ${(stage.harmonicity / lineSeconds).toFixed(2)} ms per audio second (one pass each)`);
  const heap = process.memoryUsage();
  console.log(`  peak RSS of the bench process ${(process.resourceUsage().maxRSS / 1e3).toFixed(0)} MB (the decoded recording alone is ${(pcm.byteLength / 1e6).toFixed(0)} MB; heap now ${(heap.heapUsed / 1e6).toFixed(0)} MB)`);
  // Lines cut from the long recording against Praat on the source clip (asr clips are 16 kHz already).
  const pairs: Array<{ mine: Measures; praat: Measures }> = [];
  lines.forEach((l, i) => {
    const r = byFile.get(l.source);
    if (r) pairs.push({ mine: ours(measured[i]!), praat: r.at16k.praat });
  });
  if (pairs.length) {
    console.log(`\nLines cut from long/ (measureProsody with a span inside the 13.8-min recording) vs Praat on the source clip:\n`);
    console.log(AGREEMENT_HEAD);
    console.log(agreementRow('long/ lines', agreement(pairs)));
  }
}

let praatVersion = 'praat';

async function main(): Promise<void> {
  praatVersion = (await run('praat', ['--version'])).toString().trim();
  const clips = listClips();
  console.log(`${praatVersion}; ${clips.length} clips (${clips.filter((c) => c.half === 'tune').length} tune, ${clips.filter((c) => c.half === 'test').length} test) from ${sets.join(', ')}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'prosody-bench-'));
  try {
    const results = await measureAll(clips, tmp);
    if (printTable) printClipTable(results);
    printAgreement(results);
    printTracks(results);
    if (runLong && sets.includes('asr') && every === 1) await longFile(results);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
