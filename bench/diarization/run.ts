/**
 * DER on ../shared/audio/diarization (sample + trn01–trn09), per file, per half (bench/lib/halves.ts:
 * tuning = sample, trn01, trn03, trn05, trn07, trn09; test = trn02, trn04, trn06, trn08) and overall, with
 * 0.25 s collars within each UEM. The headline is the service's own path: the transcription pipeline
 * (Silero VAD, PocketSphinx, the threaded service diarizer, speakers assigned to words and segments) with
 * the `diarized_json` segments scored as speaker turns (`--no-service-path` skips it); "words-only" scores
 * the same segments cut to their recognised words, as they were before they spanned turns. Beside it, the
 * spectral diarizer alone on its speech spans. By default speech spans come from the service's
 * diarization path (src/service/transcription/diarization-speech.ts: Silero VAD v5 on level-normalised
 * audio), so the figures are the service's; `--vad-threshold` / `--vad-min-silence` override its settings
 * for tuning. `--vad service` is the recognizer's VAD as the pipeline runs it, `--vad energy` the bench's
 * energy VAD, and `--vad oracle` the reference speech, to show diarization errors alone.
 *
 *   nice -n 10 node --import tsx bench/diarization/run.ts [--vad silero|service|energy|oracle] [--vad-threshold 0.5] [--vad-min-silence 0.1] [--set key=value ...]
 *       [--gain-db -20] [--no-levelling] [--no-denoise] [--no-dereverb]
 *
 * `--gain-db` scales every file first (a float WAV, so nothing is lost to quantisation), to show what a quieter
 * recording of the same meeting gets; `--no-levelling` runs the service path on the audio as recorded instead of
 * levelled to one peak (src/service/speech/pipeline/levelled-blocks.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import {
  diarizationError,
  parseRttm,
  parseUem,
  totalDiarizationError,
  type DerResult,
} from '../../src/service/speech/scoring/der';
import { SpectralDiarizer } from '../../src/service/speech/diarization/spectralDiarizer';
import { decodeAudio, sharedDir } from './audio';
import { energySpans } from './energyVad';
import { diarizerSettingsFromArgs } from './settings-args';
import { oracleSpans, sileroSpans } from './vad';
import { halves } from '../lib/halves';
import { flagValue } from '../lib/args';
import { resolveMediaTools } from '../../src/service/media/tools';
import { transcribeFile } from '../../src/service/speech/pipeline/transcribe';
import { createPocketSphinxRecognizer } from '../../src/service/speech/recognition/pocketsphinx-recognizer';
import { createRnnoiseDenoiser } from '../../src/service/speech/enhancement/rnnoise';
import { createWpeDereverberator } from '../../src/service/speech/enhancement/reverberant-speech';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { createServiceDiarizer } from '../../src/service/transcription/local-engine';
import { diarizedSegments } from '../../src/service/transcription/openai-formats';
import type { SpeakerTurn } from '../../src/service/speech/types';

const FILES = ['sample', ...Array.from({ length: 9 }, (_, i) => `trn0${i + 1}`)];

function parseArgs(argv: string[]) {
  let vad = 'silero';
  let threshold: number | undefined;
  let minSilence: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--vad') vad = argv[++i]!;
    else if (argv[i] === '--vad-threshold') threshold = Number(argv[++i]);
    else if (argv[i] === '--vad-min-silence') minSilence = Number(argv[++i]);
  }
  const servicePath = !argv.includes('--no-service-path');
  const gainDb = Number(flagValue('--gain-db', argv) ?? 0);
  const levelling = !argv.includes('--no-levelling');
  // Noisy chunks denoised before recognition, as the service does (--no-denoise: none).
  const denoise = !argv.includes('--no-denoise');
  // Reverberant chunks dereverberated first, as the service does (--no-dereverb: none).
  const dereverb = !argv.includes('--no-dereverb');
  return { vad, threshold, minSilence, servicePath, gainDb, levelling, denoise, dereverb, settings: diarizerSettingsFromArgs(argv) };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(7);
const sec = (x: number) => x.toFixed(2).padStart(6);

async function main() {
  const { vad, threshold, minSilence, servicePath, gainDb, levelling, denoise, dereverb, settings } = parseArgs(process.argv.slice(2));
  const dir = path.join(sharedDir, 'audio/diarization');
  const scaledDir = gainDb !== 0 ? mkdtempSync(path.join(os.tmpdir(), 'takeline-der-gain-')) : null;
  /** The file as the run hears it: the shared file, or a copy `gainDb` louder or quieter. */
  const audioFile = (file: string) => {
    const original = path.join(dir, `${file}.flac`);
    if (!scaledDir) return original;
    const scaled = path.join(scaledDir, `${file}.wav`);
    execFileSync(resolveMediaTools().ffmpeg, ['-v', 'error', '-y', '-i', original, '-af', `volume=${gainDb}dB`, '-c:a', 'pcm_f32le', scaled]);
    return scaled;
  };
  const half = halves(FILES);
  // The service's transcription path, as local-engine.ts composes it.
  const service = servicePath
    ? {
        vad: createSileroVad(),
        recognizer: createPocketSphinxRecognizer(),
        diarizer: createServiceDiarizer(),
        tools: resolveMediaTools(),
        denoiser: denoise ? createRnnoiseDenoiser() : undefined,
        dereverberator: dereverb ? createWpeDereverberator() : undefined,
      }
    : null;
  const diarizer = new SpectralDiarizer(settings);
  console.log(
    `VAD: ${vad}${vad === 'silero' ? ` (the service's diarization VAD${threshold !== undefined ? `, enter ${threshold}` : ''}${minSilence !== undefined ? `, min silence ${minSilence} s` : ''})` : ''}; settings: ${JSON.stringify(diarizer.settings)}`,
  );
  console.log(
    `audio: ${gainDb} dB; service path ${levelling ? 'levelled to one peak' : 'on the audio as recorded'}, ${denoise ? 'noisy chunks denoised' : 'no denoising'}, ${dereverb ? 'reverberant chunks dereverberated' : 'no dereverberation'}`,
  );
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
  console.log('file     half   ref(s)  missed  falseAl  confus     DER  ref spk  hyp spk   time |  diarized_json DER  words-only  spk   time');
  const results: { file: string; r: DerResult; json: DerResult | null; words: DerResult | null }[] = [];
  for (const file of FILES) {
    const reference = parseRttm(readFileSync(path.join(dir, `${file}.rttm`), 'utf8'));
    const uemPath = path.join(dir, `${file}.uem`);
    const uem = existsSync(uemPath) ? parseUem(readFileSync(uemPath, 'utf8')) : undefined;
    const heard = audioFile(file);
    const pcm = await decodeAudio(heard);
    const speech =
      vad === 'oracle'
        ? oracleSpans(reference)
        : vad === 'energy'
          ? energySpans(pcm)
          : vad === 'service'
            ? await sileroSpans(pcm, undefined, undefined, undefined, { recognizer: true })
            : await sileroSpans(pcm, threshold, threshold === undefined ? undefined : Math.max(0.01, threshold - 0.15), minSilence);
    const started = performance.now();
    const { turns } = await diarizer.diarize(pcm, speech);
    const elapsed = (performance.now() - started) / 1000;
    const r = diarizationError(reference, turns, { uem, collar: 0.25 });
    let json: DerResult | null = null;
    let words: DerResult | null = null;
    let jsonCell = '';
    if (service) {
      const t1 = performance.now();
      let serviceTurns: SpeakerTurn[] = [];
      const transcript = await transcribeFile(
        heard,
        {
          tools: service.tools,
          vad: service.vad,
          recognizer: service.recognizer,
          diarizer: service.diarizer.diarizer,
          denoiser: service.denoiser,
          dereverberator: service.dereverberator,
        },
        { levelling, onDiarization: (result) => (serviceTurns = result.turns) },
      );
      // As the endpoint builds them: segments span their speaker's turns (openai-formats.ts).
      const segments = diarizedSegments(transcript, serviceTurns);
      json = diarizationError(reference, segments, { uem, collar: 0.25 });
      // The same segments cut to their words (before 2026-11-23), to show what the turn extents buy.
      words = diarizationError(reference, diarizedSegments(transcript), { uem, collar: 0.25 });
      const spk = new Set(segments.map((x) => x.speaker)).size;
      jsonCell = ` | ${pct(json.der).padStart(18)}  ${pct(words.der).padStart(10)}  ${String(spk).padStart(3)}  ${((performance.now() - t1) / 1000).toFixed(1).padStart(5)}s`;
    }
    results.push({ file, r, json, words });
    const refSpeakers = new Set(reference.map((t) => t.speaker)).size;
    const hypSpeakers = new Set(turns.map((t) => t.speaker)).size;
    console.log(
      `${file.padEnd(8)} ${half.get(file)!.padEnd(5)} ${sec(r.reference)} ${sec(r.missed)}  ${sec(r.falseAlarm)}  ${sec(r.confusion)} ${pct(r.der)}  ${String(refSpeakers).padStart(7)}  ${String(hypSpeakers).padStart(7)}  ${elapsed.toFixed(2)}s${jsonCell}`,
    );
  }
  await service?.recognizer.close();
  await service?.vad.close();
  await service?.diarizer.close();
  const show = (name: string, rows: typeof results) => {
    const t = totalDiarizationError(rows.map((x) => x.r));
    const j = service ? totalDiarizationError(rows.map((x) => x.json!)) : null;
    const w = service ? totalDiarizationError(rows.map((x) => x.words!)) : null;
    console.log(
      `${name.padEnd(14)} ${sec(t.reference)} ${sec(t.missed)}  ${sec(t.falseAlarm)}  ${sec(t.confusion)} ${pct(t.der)}   (missed ${pct(t.missed / t.reference)}, FA ${pct(t.falseAlarm / t.reference)}, confusion ${pct(t.confusion / t.reference)})${j ? ` | diarized_json ${pct(j.der)} (missed ${pct(j.missed / j.reference)}, FA ${pct(j.falseAlarm / j.reference)}, confusion ${pct(j.confusion / j.reference)}; words-only ${pct(w!.der)})` : ''}`,
    );
  };
  show('tuning half', results.filter((x) => half.get(x.file) === 'tune'));
  show('test half', results.filter((x) => half.get(x.file) === 'test'));
  show('trn all', results.filter((x) => x.file.startsWith('trn')));
  show('all', results);
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (scaledDir) rmSync(scaledDir, { recursive: true, force: true });
}

await main();
