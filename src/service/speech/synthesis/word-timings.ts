import type { MediaTools } from '../../media/tools';
import { resampleMono } from '../../media/resample';
import { SAMPLE_RATE, type Aligner } from '../types';
import type { SpokenWord, SynthesizedSpeech } from './voice';

/** Where a reading's word times came from: the engine's own phone timings, or a forced alignment of its audio. */
export type WordTimingSource = 'engine' | 'alignment';

export interface TimedSpeech extends SynthesizedSpeech {
  words: SpokenWord[];
  timings: WordTimingSource;
}

/** No word times can be given: the engine has none and no aligner is installed. */
export class NoWordTimingsError extends Error {}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The words of `text` in a reading of it, with their times: the engine's own (festival's voices) when it
 * gave them, else a forced alignment of the audio (PocketSphinx, at 16 kHz). `aligner` is asked only when
 * needed, so it is started only then.
 */
export async function wordTimings(
  spoken: SynthesizedSpeech,
  text: string,
  deps: { tools: MediaTools; aligner: () => Aligner | null; signal?: AbortSignal; engineTimings?: boolean },
): Promise<TimedSpeech> {
  if ((deps.engineTimings ?? true) && spoken.words?.length) return { ...spoken, words: spoken.words, timings: 'engine' };
  const aligner = deps.aligner();
  if (!aligner) throw new NoWordTimingsError('This voice gives no word times of its own and no forced aligner is installed (PocketSphinx: apt-get install -y pocketsphinx pocketsphinx-en-us).');
  const at16k = spoken.sampleRate === SAMPLE_RATE ? spoken.samples : await resampleMono(deps.tools, spoken.samples, spoken.sampleRate, SAMPLE_RATE, deps.signal);
  const aligned = await aligner.align(at16k, text, { signal: deps.signal });
  return { ...spoken, words: aligned.map((w) => ({ word: w.word, start: round6(w.start), end: round6(w.end) })), timings: 'alignment' };
}

/** Word times of a stretch of audio that starts `offset` seconds in (a later sentence of a longer text). */
export function shiftWords(words: SpokenWord[], offset: number): SpokenWord[] {
  return words.map((w) => ({ word: w.word, start: round6(w.start + offset), end: round6(w.end + offset) }));
}

/** Word times after the audio was time-stretched by `factor` (output length / input length). */
export function scaleWords(words: SpokenWord[], factor: number): SpokenWord[] {
  return words.map((w) => ({ word: w.word, start: round6(w.start * factor), end: round6(w.end * factor) }));
}
