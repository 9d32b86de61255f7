/**
 * Time and memory of the diarizer on a long recording: ../shared/audio/long/read_speech_concat.flac
 * (≈13.8 min of read speech, many readers end to end), repeated `--repeat` times (default 4, ≈55 min) to
 * stand in for an hour-long file. Speech spans from the bench's energy VAD. Prints speakers found, DER against
 * the segment list (repeated with the audio; one label per reader or corpus),
 * wall time and the process's peak resident memory.
 *
 *   nice -n 10 node --import tsx bench/diarization/long.ts [--repeat 4] [--set key=value ...]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diarizationError, type LabeledTurn } from '../../src/service/speech/scoring/der';
import { SpectralDiarizer } from '../../src/service/speech/diarization/spectralDiarizer';
import { decodeAudio, sharedDir } from './audio';
import { energySpans } from './energyVad';
import { diarizerSettingsFromArgs } from './settings-args';
import { flagValue } from '../lib/args';

async function main() {
  const repeat = Number(flagValue('--repeat') ?? 4);
  const once = await decodeAudio(path.join(sharedDir, 'audio/long/read_speech_concat.flac'));
  const pcm = new Float32Array(once.length * repeat);
  const onceSeconds = once.length / 16000;
  for (let r = 0; r < repeat; r++) pcm.set(once, r * once.length);
  const seconds = pcm.length / 16000;
  const speech = energySpans(pcm);
  const speechSeconds = speech.reduce((s, x) => s + x.end - x.start, 0);
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const settings = diarizerSettingsFromArgs(process.argv);
  const { turns, profiles } = await new SpectralDiarizer(settings).diarize(pcm, speech);
  const elapsed = (performance.now() - started) / 1000;
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(
    `audio ${(seconds / 60).toFixed(1)} min, speech ${(speechSeconds / 60).toFixed(1)} min in ${speech.length} spans`,
  );
  console.log(`speakers ${Object.keys(profiles).length}, turns ${turns.length}`);
  console.log(`diarization ${elapsed.toFixed(1)} s (${(seconds / elapsed).toFixed(0)}× real time)`);
  {
    // The repeats reuse the same voices, so the reference repeats with them (one label per voice).
    const once = longReference();
    const reference = Array.from({ length: repeat }, (_, k) =>
      once.map((t) => ({ ...t, start: t.start + k * onceSeconds, end: t.end + k * onceSeconds })),
    ).flat();
    const r = diarizationError(reference, turns, { collar: 0.25 });
    console.log(
      `DER ${(100 * r.der).toFixed(1)}% (missed ${r.missed.toFixed(1)} s, false alarm ${r.falseAlarm.toFixed(1)} s, confusion ${r.confusion.toFixed(1)} s of ${r.reference.toFixed(1)} s)`,
    );
  }
  console.log(
    `RSS before ${(rssBefore / 2 ** 20).toFixed(0)} MiB (audio ${(pcm.byteLength / 2 ** 20).toFixed(0)} MiB), peak ${(peak / 2 ** 20).toFixed(0)} MiB`,
  );
}

/**
 * The concatenation's reference turns, one voice per source corpus/reader: the segments file names each
 * clip's source; the speaker is its name without the utterance number (LibriSpeech keeps the reader id).
 */
function longReference(): LabeledTurn[] {
  const rows = readFileSync(path.join(sharedDir, 'audio/long/read_speech_concat.segments.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));
  return rows.map(([start, end, source]) => ({
    start: Number(start),
    end: Number(end),
    speaker: speakerOf(source!),
  }));
}

function speakerOf(source: string): string {
  const reader = /^librispeech_\w*?_(\d+)-/.exec(source);
  if (reader) return `librispeech-${reader[1]}`;
  for (const corpus of ['amateur', 'ljspeech', 'us_aew', 'us_axb', 'arctic_a', 'austen', 'cards', 'misc', 'jfk'])
    if (source.includes(corpus)) return corpus;
  return source;
}

await main();
