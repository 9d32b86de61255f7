import { framePitch } from '../diarization/voicing';
import { median } from '../../dsp/stats';
import { SAMPLE_RATE, type Span } from '../types';

/**
 * How far each word's pitch ends below the speaker's middle pitch over the same stretch of audio, in
 * semitones (positive = ends low). Declarative sentences end near the bottom of a speaker's range; a
 * clause that goes on stays up or rises. Null where the word's end has too few voiced frames to say.
 *
 * F0 comes from the diarizer's framePitch (autocorrelation, 10 ms hop); octave errors are kept out by
 * medians on both sides. Cost: about 30 k multiply-adds per 10 ms; measured 0.004 × real time (37 ms for a
 * 9.7 s clip on a busy 2-core machine).
 */

const HOP = SAMPLE_RATE / 100;
const FRAME = Math.round(0.03 * SAMPLE_RATE);
/** A frame counts as voiced above this periodicity (one voice, clearly pitched). */
const VOICED = 0.7;
/** The end of a word is its last 40%, at least 0.1 s. */
const END_FRACTION = 0.4;
const MIN_END_SECONDS = 0.1;
const MIN_END_FRAMES = 3;

export interface PitchTrack {
  /** Time of frame 0's centre, on the recording's clock. */
  start: number;
  f0: Float32Array;
  voicing: Float32Array;
}

/** F0 and voicing every 10 ms over `pcm`, whose first sample is at `offset` seconds. */
export function pitchTrack(pcm: Float32Array, offset = 0): PitchTrack {
  const frames = Math.max(0, Math.floor((pcm.length - FRAME) / HOP) + 1);
  const { f0, voicing } = framePitch(pcm, frames, HOP, FRAME);
  return { start: offset + FRAME / 2 / SAMPLE_RATE, f0, voicing };
}

function voicedF0(track: PitchTrack, from: number, to: number): number[] {
  const out: number[] = [];
  const first = Math.max(0, Math.ceil((from - track.start) * 100));
  const last = Math.min(track.f0.length - 1, Math.floor((to - track.start) * 100));
  for (let i = first; i <= last; i++) if (track.voicing[i]! >= VOICED && track.f0[i]! > 0) out.push(track.f0[i]!);
  return out;
}

/** Semitones by which each word's end lies below the median voiced F0 of the whole track (null: unknown). */
export function wordEndFalls(track: PitchTrack, words: readonly Span[]): (number | null)[] {
  const end = track.start + track.f0.length / 100;
  const all = voicedF0(track, track.start, end);
  if (all.length < MIN_END_FRAMES) return words.map(() => null);
  const reference = median(all)!;
  return words.map((w) => {
    const from = Math.max(w.start, w.end - Math.max(MIN_END_SECONDS, END_FRACTION * (w.end - w.start)));
    const f0 = voicedF0(track, from, w.end);
    if (f0.length < MIN_END_FRAMES) return null;
    return 12 * Math.log2(reference / median(f0)!);
  });
}
