/**
 * One file under the microscope: the speech spans, the diarizer's turns, the reference turns, and what
 * each hypothesis speaker is made of in reference terms (seconds of each reference speaker, of overlap
 * "a+b", and of non-speech "none"). Used to find what a spurious speaker is. Also each hypothesis speaker's
 * share of clearly voiced frames (voicing ≥ 0.8: is it a voice, or noise/overlap?) and each reference
 * speaker's median F0 over its clearly voiced, non-overlapped frames (could pitch tell the voices apart?).
 *
 *   nice -n 10 node --import tsx bench/diarization/inspect.ts [sample|trn01…] [--vad silero|oracle] [--set key=value ...]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRttm, type LabeledTurn } from '../../src/service/speech/scoring/der';
import { SpectralDiarizer } from '../../src/service/speech/diarization/spectralDiarizer';
import { framePitch } from '../../src/service/speech/diarization/voicing';
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
  const { voicing, f0 } = framePitch(pcm, Math.floor((pcm.length - 400) / 160) + 1, 160, 400);
  const frameAt = (t: number) => Math.round(t * 100 - 1.25); // 25 ms frames, 10 ms hop: centre at 10i + 12.5 ms
  for (const [speaker, parts] of composition(turns, reference)) {
    const frames = turns
      .filter((t) => t.speaker === speaker)
      .flatMap((t) => range(Math.max(0, frameAt(t.start)), Math.min(voicing.length, frameAt(t.end))));
    const voiced = frames.filter((f) => voicing[f]! >= 0.8).length / Math.max(1, frames.length);
    console.log(
      `${speaker}: ${[...parts].map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(', ')}; voiced (≥ 0.8) ${(100 * voiced).toFixed(0)}%`,
    );
  }
  for (const speaker of [...new Set(reference.map((t) => t.speaker))].sort()) {
    const pitches = range(0, voicing.length)
      .filter((f) => voicing[f]! >= 0.8)
      .filter((f) => {
        const t = (f * 160 + 200) / 16000;
        const who = reference.filter((r) => t >= r.start && t < r.end);
        return who.length === 1 && who[0]!.speaker === speaker;
      })
      .map((f) => f0[f]!)
      .sort((a, b) => a - b);
    const q = (p: number) => (pitches.length ? pitches[Math.floor(p * (pitches.length - 1))]!.toFixed(0) : '–');
    console.log(`${speaker}: F0 over ${pitches.length} voiced frames, 10th/50th/90th percentile ${q(0.1)} / ${q(0.5)} / ${q(0.9)} Hz`);
  }
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

await main();
