import { pitchTrack, type PitchTrack } from '../../speech/prosody/pitch';
import { scaleTargets, targetLength, wordTimeMap, type TimeAnchor, type WordSpan } from '../../dsp/time-map';

/** Pitch range tracked: Praat's usual 75 Hz floor, a ceiling above any speaking voice (as for speaker pitch). */
const FLOOR_HZ = 75;
const CEILING_HZ = 500;
/** At most an octave either way: beyond that a shifted voice stops sounding like itself. */
export const MAX_SHIFT_SEMITONES = 12;

export const GUIDE_PITCH_RANGE = { floor: FLOOR_HZ, ceiling: CEILING_HZ } as const;

/** Median F0 over the voiced frames (the project's Praat-equivalent tracker), or null without any. */
export function medianPitchHz(pcm: Float32Array, sampleRate: number): number | null {
  return medianF0(pitchTrack(pcm, sampleRate, GUIDE_PITCH_RANGE));
}

/** Median F0 of a track's voiced frames, or null without any. */
export function medianF0(track: PitchTrack): number | null {
  const f0 = [...track.f0].filter((hz) => hz > 0).sort((a, b) => a - b);
  if (f0.length === 0) return null;
  const mid = f0.length >> 1;
  return f0.length % 2 ? f0[mid]! : (f0[mid - 1]! + f0[mid]!) / 2;
}

/** The shift (semitones) that puts `fromHz` on `toHz`, within an octave; 0 when either is unknown. */
export function semitonesToward(fromHz: number | null, toHz: number | null): number {
  if (!fromHz || !toHz) return 0;
  const shift = 12 * Math.log2(toHz / fromHz);
  return Math.max(-MAX_SHIFT_SEMITONES, Math.min(MAX_SHIFT_SEMITONES, shift));
}

export interface GuidePlan {
  /** Reading seconds → seconds from the slot's start. */
  anchors: TimeAnchor[];
  /** Whether the words were paired one to one (else only the speech's first onset and last end). */
  wordByWord: boolean;
  /** Factor the original's timing was squeezed by to stay within the slot (1: not at all). */
  squeeze: number;
}

/**
 * The time map of a guided line: the reading's words onto the original's (both in seconds, the reading's
 * from its own start, the original's from the slot's start), squeezed uniformly when the original's timing
 * runs past `room` seconds (the slot with any silence it may borrow).
 */
export function planGuide(readingWords: readonly WordSpan[], originalWords: readonly WordSpan[], readingSeconds: number, room: number): GuidePlan {
  const anchors = wordTimeMap(readingWords, originalWords, readingSeconds);
  const length = targetLength(anchors);
  const squeeze = length > room && length > 0 ? room / length : 1;
  return {
    anchors: squeeze === 1 ? anchors : scaleTargets(anchors, squeeze),
    wordByWord: readingWords.length > 0 && readingWords.length === originalWords.length,
    squeeze,
  };
}
