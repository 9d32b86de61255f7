/**
 * Articulation rate against known tempo changes and against the references' syllables, on
 * ../shared/audio/asr: each clip and versions of it played 0.8×, 1.2×, 1.3× and 1.5× as fast with the pitch
 * kept (ffmpeg's atempo), transcribed as the service does (transcribeFile: Silero VAD, PocketSphinx pool,
 * the text writer) and measured as the analysis measures a line (speech span and pauses from
 * src/service/speech/delivery/pauses.ts; the clip is one line). Methods side by side (README.md):
 *   dictionary  the syllables of the recognized words (the method before this bench)
 *   nuclei      syllable nuclei read from the signal (src/service/speech/delivery/nuclei.ts)
 *   shipped     the signal rule as first shipped, now measured but not published (delivery/pace.ts:
 *               calibratedSyllables; analysis/run-analysis.ts withSignalPace), with the source's clips at
 *               their own tempo as the speaker's other lines; the published pace is `dictionary`
 * Halves: bench/lib/halves.ts. Recognized words are kept in a cache (--cache FILE, default under the OS temp
 * folder), so later runs (e.g. --grid, which ranks the nuclei settings on the tuning half's counts) do not
 * decode again.
 *
 *   nice -n 10 node --import tsx bench/pace/run.ts [--halves test,tune] [--no-asr] [--cached-only] [--grid] [--every N] [--cache FILE] [--praat-script FILE]
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { frameLevels } from '../../src/service/dsp/levels';
import { quantile } from '../../src/service/dsp/stats';
import { resolveMediaTools } from '../../src/service/media/tools';
import { analysePauses, type TimedWord } from '../../src/service/speech/delivery/pauses';
import { linePace } from '../../src/service/speech/delivery/pace';
import { NUCLEI_DEFAULTS, syllableNuclei, type NucleiOptions } from '../../src/service/speech/delivery/nuclei';
import { SyllableDictionary } from '../../src/service/speech/delivery/syllables';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { pitchTrack } from '../../src/service/speech/prosody/pitch';
import { resolvePocketSphinxModel } from '../../src/service/speech/recognition/pocketsphinx/model';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { SAMPLE_RATE, type Recognizer } from '../../src/service/speech/types';
import { createSileroVad, type SileroVad } from '../../src/service/speech/vad/silero';
import { flagValue } from '../lib/args';
import { readAsrSet, type AsrFile } from '../lib/asr-set';
import type { Half } from '../lib/halves';
import { wavFile } from '../lib/wav';
import { summarise, type ClipMeasure, type Method } from './score';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sharedDir = process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared');
const asrDir = path.join(sharedDir, 'audio/asr');
const cacheFile = flagValue('--cache') ?? path.join(os.tmpdir(), 'takeline-pace-words.json');
const halvesAsked = (flagValue('--halves') ?? 'test,tune').split(',') as Half[];
const every = Number(flagValue('--every') ?? 1);
const useAsr = !process.argv.includes('--no-asr') && !process.argv.includes('--cached-only');
/** Only clips whose every tempo is in the cache (to report a partial run without decoding). */
const cachedOnly = process.argv.includes('--cached-only');
export const TEMPOS = [1, 0.8, 1.2, 1.3, 1.5] as const;

type Cache = Record<string, TimedWord[]>;
const cache: Cache = existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as Cache) : {};
const key = (file: string, tempo: number) => `${file}@${tempo}`;

/**
 * De Jong & Wempe's own Praat script, version 2 for a folder (e.g. praat-script-syllable-nuclei-v2dir.praat as
 * published; not shipped here), run once by Debian's praat over every clip version with its defaults
 * (−25 dB, 2 dB, pauses ≥ 0.3 s): its syllable count is a fourth column, over the same articulation time.
 */
const praatScript = flagValue('--praat-script');
const tools = resolveMediaTools();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'takeline-pace-'));
const praatDir = path.join(tmp, 'praat');
if (praatScript) mkdirSync(praatDir);
/** Clip version → the name of its WAV in praatDir. */
const praatNames = new Map<string, string>();
const dictionary = SyllableDictionary.load(resolvePocketSphinxModel().dict);

/** The clip played `tempo` times as fast, pitch kept, as 16 kHz mono float samples. */
async function tempoVersion(file: string, tempo: number): Promise<Float32Array> {
  const args = ['-v', 'error', '-i', file, ...(tempo === 1 ? [] : ['-af', `atempo=${tempo}`]), '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', 'pipe:1'];
  const { stdout } = await run(tools.ffmpeg, args, { encoding: 'buffer', maxBuffer: 1 << 28 });
  const bytes = Buffer.from(stdout);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice();
}

let engines = null as { vad: SileroVad; recognizer: Recognizer } | null;
async function closeEngines(): Promise<void> {
  await engines?.recognizer.close();
  await engines?.vad.close();
  engines = null;
}
async function recognise(file: string, tempo: number, pcm: Float32Array): Promise<TimedWord[]> {
  const k = key(file, tempo);
  if (cache[k]) return cache[k];
  engines ??= { vad: createSileroVad(), recognizer: createPocketSphinxRecognizer({ workers: 2 }) };
  const wav = path.join(tmp, 'clip.wav');
  writeFileSync(wav, wavFile(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), SAMPLE_RATE, 'float32'));
  let transcript;
  try {
    transcript = await transcribeFile(wav, { tools, ...engines });
  } catch (error) {
    // A decoder starved on a busy machine times out: start the engines afresh and try once more.
    process.stderr.write(`${k}: ${(error as Error).message}; retrying\n`);
    await closeEngines();
    engines = { vad: createSileroVad(), recognizer: createPocketSphinxRecognizer({ workers: 2 }) };
    transcript = await transcribeFile(wav, { tools, ...engines });
  }
  cache[k] = transcript.segments.flatMap((s) => s.words.map((w) => ({ word: w.word, start: w.start, end: w.end })));
  writeFileSync(cacheFile, JSON.stringify(cache));
  return cache[k];
}

/** Nuclei settings compared by --grid (the window's pitch floor and the minimum dip); the first is the shipped one, the second the script's. */
const GRID: NucleiOptions[] = [
  NUCLEI_DEFAULTS,
  ...[
    [50, 2],
    [75, 3],
    [125, 3],
    [100, 2],
    [100, 4],
  ].map(([minPitchHz, minDipDb]) => ({ ...NUCLEI_DEFAULTS, minPitchHz: minPitchHz!, minDipDb: minDipDb! })),
];
const grid = process.argv.includes('--grid');

async function measure(f: AsrFile, tempo: number): Promise<ClipMeasure> {
  const pcm = await tempoVersion(path.join(asrDir, f.file), tempo);
  const duration = pcm.length / SAMPLE_RATE;
  if (praatScript) {
    const name = `c${praatNames.size}`;
    praatNames.set(key(f.file, tempo), name);
    writeFileSync(path.join(praatDir, `${name}.wav`), wavFile(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), SAMPLE_RATE, 'float32'));
  }
  const words = useAsr ? await recognise(f.file, tempo, pcm) : cache[key(f.file, tempo)] ?? null;
  const levels = frameLevels(pcm, SAMPLE_RATE);
  const track = pitchTrack(pcm, SAMPLE_RATE);
  // Silence as the analysis sets it: 6 dB over the noise floor (here the clip's 10th-percentile frame), never
  // more than 35 dB under its loud frames.
  const loud = quantile(levels.db, 0.95) ?? -120;
  const silenceDb = Math.max((quantile(levels.db, 0.1) ?? -120) + 6, loud - 35);
  const pauses = words ? analysePauses({ line: { start: 0, end: duration }, words, levels, pitch: track, silenceDb }) : null;
  const pace = words && pauses ? linePace(words, dictionary, pauses) : null;
  const from = pauses?.speech_start ?? 0;
  const to = pauses?.speech_end ?? duration;
  const nuclei = (grid ? GRID : [NUCLEI_DEFAULTS]).map((o) => syllableNuclei(pcm, SAMPLE_RATE, from, to, track, o).length);
  const referenceSyllables = f.reference.split(/\s+/).reduce((n, w) => n + dictionary.count(w), 0);
  return {
    file: f.file,
    source: f.source,
    half: f.half,
    tempo,
    duration,
    referenceSyllables,
    dictionarySyllables: pace?.syllables ?? null,
    articulationSeconds: pace?.articulation_seconds ?? null,
    nuclei,
  };
}

const started = Date.now();
const set = readAsrSet(asrDir)
  .filter((f) => halvesAsked.includes(f.half))
  .filter((_, i) => i % every === 0)
  .filter((f) => !cachedOnly || TEMPOS.every((t) => cache[key(f.file, t)]))
  // The test half first, so an interrupted run has the figures that are reported; within a half the sources
  // take turns, so any prefix of the run (--cached-only) holds every source.
  .map((f, i, all) => ({ f, turn: all.slice(0, i).filter((g) => g.source === f.source && g.half === f.half).length }))
  .sort((a, b) => halvesAsked.indexOf(a.f.half) - halvesAsked.indexOf(b.f.half) || a.turn - b.turn)
  .map(({ f }) => f);
const measures: ClipMeasure[] = [];
try {
  for (const [i, f] of set.entries()) {
    for (const tempo of TEMPOS) measures.push(await measure(f, tempo));
    if ((i + 1) % 10 === 0) process.stderr.write(`${i + 1}/${set.length} clips, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  if (praatScript) {
    const { stdout } = await run('praat', ['--run', praatScript, '-25', '2', '0.3', 'no', praatDir], { maxBuffer: 1 << 26 });
    const counts = new Map(stdout.split('\n').slice(1).filter(Boolean).map((l) => l.split(', ')).map(([name, nsyll]) => [name!, Number(nsyll)]));
    for (const m of measures) m.praat = counts.get(praatNames.get(key(m.file, m.tempo))!);
  }
} finally {
  await closeEngines();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`${set.length} clips × ${TEMPOS.length} tempos measured in ${((Date.now() - started) / 1000).toFixed(0)} s; words cached in ${cacheFile}`);
const methods: Method[] = ['dictionary', 'nuclei', 'shipped', 'praat'];
for (const half of halvesAsked) {
  const own = measures.filter((m) => m.half === half);
  if (own.length) console.log(`\n## ${half} half (${own.length / TEMPOS.length} clips)\n\n${summarise(own, methods, 0)}`);
}
if (grid) {
  console.log('\n## nuclei settings, tuning half: count at each tempo over the count at 1× (median, share within 10 %), and nuclei per reference syllable');
  for (const [g, o] of GRID.entries()) {
    const own = measures.filter((m) => m.half === 'tune');
    console.log(`\nwindow floor ${o.minPitchHz} Hz, dip ${o.minDipDb} dB\n${summarise(own, ['nuclei'], g)}`);
  }
}
