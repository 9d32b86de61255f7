/**
 * DER of the spectral diarizer on ../shared/audio/diarization (sample + trn01–trn09), per file and
 * overall, with 0.25 s collars within each UEM. By default speech spans come from the service's
 * diarization path (src/service/transcription/diarization-speech.ts: Silero VAD v5 on level-normalised
 * audio), so the figures are the service's; `--vad-threshold` / `--vad-min-silence` override its settings
 * for tuning. `--vad service` is the recognizer's VAD as the pipeline runs it, `--vad energy` the bench's
 * energy VAD, and `--vad oracle` the reference speech, to show diarization errors alone.
 *
 *   nice -n 10 node --import tsx bench/diarization/run.ts [--vad silero|service|energy|oracle] [--vad-threshold 0.5] [--vad-min-silence 0.1] [--set key=value ...]
 */
import { existsSync, readFileSync } from 'node:fs';
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
  return { vad, threshold, minSilence, settings: diarizerSettingsFromArgs(argv) };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(7);
const sec = (x: number) => x.toFixed(2).padStart(6);

async function main() {
  const { vad, threshold, minSilence, settings } = parseArgs(process.argv.slice(2));
  const dir = path.join(sharedDir, 'audio/diarization');
  const diarizer = new SpectralDiarizer(settings);
  console.log(
    `VAD: ${vad}${vad === 'silero' ? ` (the service's diarization VAD${threshold !== undefined ? `, enter ${threshold}` : ''}${minSilence !== undefined ? `, min silence ${minSilence} s` : ''})` : ''}; settings: ${JSON.stringify(diarizer.settings)}`,
  );
  console.log('file      ref(s)  missed  falseAl  confus     DER  ref spk  hyp spk   time');
  const results: { file: string; r: DerResult }[] = [];
  for (const file of FILES) {
    const reference = parseRttm(readFileSync(path.join(dir, `${file}.rttm`), 'utf8'));
    const uemPath = path.join(dir, `${file}.uem`);
    const uem = existsSync(uemPath) ? parseUem(readFileSync(uemPath, 'utf8')) : undefined;
    const pcm = await decodeAudio(path.join(dir, `${file}.flac`));
    const speech =
      vad === 'oracle'
        ? oracleSpans(reference)
        : vad === 'energy'
          ? energySpans(pcm)
          : vad === 'service'
            ? await sileroSpans(pcm, undefined, undefined, undefined, { scale: false })
            : await sileroSpans(pcm, threshold, threshold === undefined ? undefined : Math.max(0.01, threshold - 0.15), minSilence);
    const started = performance.now();
    const { turns } = await diarizer.diarize(pcm, speech);
    const elapsed = (performance.now() - started) / 1000;
    const r = diarizationError(reference, turns, { uem, collar: 0.25 });
    results.push({ file, r });
    const refSpeakers = new Set(reference.map((t) => t.speaker)).size;
    const hypSpeakers = new Set(turns.map((t) => t.speaker)).size;
    console.log(
      `${file.padEnd(8)} ${sec(r.reference)} ${sec(r.missed)}  ${sec(r.falseAlarm)}  ${sec(r.confusion)} ${pct(r.der)}  ${String(refSpeakers).padStart(7)}  ${String(hypSpeakers).padStart(7)}  ${elapsed.toFixed(2)}s`,
    );
  }
  const show = (name: string, rs: DerResult[]) => {
    const t = totalDiarizationError(rs);
    console.log(
      `${name.padEnd(8)} ${sec(t.reference)} ${sec(t.missed)}  ${sec(t.falseAlarm)}  ${sec(t.confusion)} ${pct(t.der)}   (missed ${pct(t.missed / t.reference)}, FA ${pct(t.falseAlarm / t.reference)}, confusion ${pct(t.confusion / t.reference)})`,
    );
  };
  show(
    'trn all',
    results.filter((x) => x.file.startsWith('trn')).map((x) => x.r),
  );
  show(
    'all',
    results.map((x) => x.r),
  );
}

await main();
