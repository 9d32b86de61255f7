/**
 * One file under the microscope: the speech spans, the diarizer's turns, the reference turns, and what
 * each hypothesis speaker is made of in reference terms (seconds of each reference speaker, of overlap
 * "a+b", and of non-speech "none"). Used to find what a spurious speaker is.
 *
 *   nice -n 10 node --import tsx bench/diarization/inspect.ts [sample|trn01…] [--vad silero|oracle] [--set key=value ...]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRttm, type LabeledTurn } from '../../src/service/speech/scoring/der';
import { SpectralDiarizer } from '../../src/service/speech/diarization/spectralDiarizer';
import type { SpeakerTurn } from '../../src/service/speech/types';
import { decodeAudio, sharedDir } from './audio';
import { diarizerSettingsFromArgs } from './settings-args';
import { oracleSpans, sileroSpans } from './vad';

function parseArgs(argv: string[]) {
  let file = 'sample';
  let vad = 'silero';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--vad') vad = argv[++i]!;
    else if (argv[i] === '--set') i++;
    else file = argv[i]!;
  }
  return { file, vad, settings: diarizerSettingsFromArgs(argv) };
}

/** Seconds of each reference label (speaker, "a+b" overlap, "none") under each hypothesis speaker. */
function composition(turns: SpeakerTurn[], reference: LabeledTurn[], step = 0.01): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const h of turns) {
    const m = out.get(h.speaker) ?? new Map<string, number>();
    out.set(h.speaker, m);
    for (let t = h.start + step / 2; t < h.end; t += step) {
      const who =
        reference
          .filter((r) => t >= r.start && t < r.end)
          .map((r) => r.speaker)
          .sort()
          .join('+') || 'none';
      m.set(who, (m.get(who) ?? 0) + step);
    }
  }
  return out;
}

async function main() {
  const { file, vad, settings } = parseArgs(process.argv.slice(2));
  const dir = path.join(sharedDir, 'audio/diarization');
  const reference = parseRttm(readFileSync(path.join(dir, `${file}.rttm`), 'utf8'));
  const pcm = await decodeAudio(path.join(dir, `${file}.flac`));
  const speech = vad === 'oracle' ? oracleSpans(reference) : await sileroSpans(pcm);
  const span = (t: { start: number; end: number }) => `${t.start.toFixed(2)}–${t.end.toFixed(2)}`;
  console.log(`spans: ${speech.map(span).join(' ')}`);
  const { turns } = await new SpectralDiarizer(settings).diarize(pcm, speech);
  console.log(`hypothesis: ${turns.map((t) => `${span(t)} ${t.speaker}`).join(', ')}`);
  console.log(`reference: ${reference.map((t) => `${span(t)} ${t.speaker}`).join(', ')}`);
  for (const [speaker, parts] of composition(turns, reference))
    console.log(`${speaker}: ${[...parts].map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(', ')}`);
}

await main();
