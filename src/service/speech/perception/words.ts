import type { LevelTrack } from '../../dsp/levels';
import { frameRange, meanLevel } from '../../dsp/levels';
import { median } from '../../dsp/stats';
import type { PitchFrames, TimedWord } from '../delivery/pauses';
import type { SyllableCounter } from '../delivery/pace';
import { isFillerWord } from '../delivery/syllables';

/** What the listening rules need of one word, measured once in the prosody stage (stored with the line). */
export interface WordMeasure {
  word: string;
  start: number;
  end: number;
  syllables: number;
  /** A recognizer's filler (uh, um…). */
  filler: boolean;
  /** Median F0 of the word's voiced frames, Hz; null when fewer than MIN_VOICED_FRAMES are voiced. */
  pitch_hz: number | null;
  /** Median F0 of the word's last END_SECONDS of voicing, Hz (the pitch it ends on; a final consonant is skipped). */
  end_pitch_hz: number | null;
  /** RMS level over the word, dBFS. */
  energy_db: number | null;
}

/** A word needs this many voiced pitch frames (10 ms) for a pitch of its own. */
const MIN_VOICED_FRAMES = 3;
/** The stretch at a word's end whose pitch is the pitch it ends on. */
export const END_SECONDS = 0.15;

const r = (x: number | null, digits: number) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** Voiced F0 values of the frames inside [start, end], in time order. */
function voicedFrames(track: PitchFrames | null, start: number, end: number): number[] {
  if (!track) return [];
  const a = Math.max(0, Math.ceil((start - track.start) / track.timeStep));
  const b = Math.min(track.f0.length - 1, Math.floor((end - track.start) / track.timeStep));
  const voiced: number[] = [];
  for (let k = a; k <= b; k++) if (track.f0[k]! > 0) voiced.push(track.f0[k]!);
  return voiced;
}

const medianOf = (voiced: number[]) => (voiced.length >= MIN_VOICED_FRAMES ? median(voiced) : null);

/** Per-word pitch, end pitch and level from the line's pitch track and the recording's frame levels. */
export function measureWords(words: ReadonlyArray<TimedWord>, levels: LevelTrack, track: PitchFrames | null, syllables: SyllableCounter): WordMeasure[] {
  return words.map((w) => {
    const timed = w.end > w.start;
    const filler = isFillerWord(w.word);
    const voiced = timed ? voicedFrames(track, w.start, w.end) : [];
    const endFrames = track ? Math.max(MIN_VOICED_FRAMES, Math.round(END_SECONDS / track.timeStep)) : 0;
    return {
      word: w.word,
      start: w.start,
      end: w.end,
      syllables: filler ? 0 : syllables.count(w.word),
      filler,
      pitch_hz: r(medianOf(voiced), 1),
      end_pitch_hz: r(medianOf(voiced.slice(-endFrames)), 1),
      energy_db: timed && levels.db.length ? r(meanLevel(levels.db.subarray(...frameRange(levels, w.start, w.end))), 1) : null,
    };
  });
}
