import type { Baseline, Emphasis } from '../../../shared/schemas/analysis';
import { median } from '../../dsp/stats';
import type { WordMeasure } from './words';

/**
 * Emphasised words (README "Emphasis"). A word stands out from its line by pitch (its median F0 PITCH_ST
 * or more above the line's median word pitch), level (LEVEL_DB or more above the line's median word level)
 * or length (seconds per syllable LENGTH_RATIO times the line's median or more; not for the word before a
 * pause or at the line's end, which are lengthened anyway). It must also be raised against the speaker's
 * baseline — pitch above the speaker's median or level above the speaker's median level — so a quiet or low
 * line does not yield emphasis from its own small peaks. Strength 0–1 is the largest cue over the scale that
 * makes the threshold one third; at most one word in WORDS_PER_EMPHASIS is kept, the strongest.
 */
export const PITCH_ST = 2;
export const LEVEL_DB = 3;
export const LENGTH_RATIO = 1.5;
export const WORDS_PER_EMPHASIS = 5;
const PITCH_SCALE = PITCH_ST * 3;
const LEVEL_SCALE = LEVEL_DB * 3;
const LENGTH_SCALE = (LENGTH_RATIO - 1) * 3;
/** Shorter words are clicks or alignment slivers. */
const MIN_WORD_SECONDS = 0.08;
const PAUSE_AFTER = 0.2;

const st = (hz: number) => 12 * Math.log2(hz);
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

export function findEmphasis(words: ReadonlyArray<WordMeasure>, baseline: Pick<Baseline, 'pitch_hz' | 'energy_db'> | undefined): Emphasis[] {
  const lexical = words.map((w, i) => ({ w, i })).filter(({ w }) => !w.filler && w.end - w.start >= MIN_WORD_SECONDS && w.syllables > 0);
  if (lexical.length < 3) return [];
  const pitchMedian = median(lexical.flatMap(({ w }) => (w.pitch_hz ? [st(w.pitch_hz)] : [])));
  const levelMedian = median(lexical.flatMap(({ w }) => (w.energy_db !== null ? [w.energy_db] : [])));
  const lengthMedian = median(lexical.map(({ w }) => (w.end - w.start) / w.syllables));
  const found: Emphasis[] = [];
  lexical.forEach(({ w, i }, j) => {
    const next = lexical[j + 1]?.w;
    const beforePause = !next || next.start - w.end >= PAUSE_AFTER;
    const pitchCue = w.pitch_hz && pitchMedian !== null ? (st(w.pitch_hz) - pitchMedian) / PITCH_SCALE : 0;
    const levelCue = w.energy_db !== null && levelMedian !== null ? (w.energy_db - levelMedian) / LEVEL_SCALE : 0;
    const lengthCue = !beforePause && lengthMedian ? ((w.end - w.start) / w.syllables / lengthMedian - 1) / LENGTH_SCALE : 0;
    const strength = Math.max(pitchCue, levelCue, lengthCue);
    if (strength < 1 / 3 - 1e-9) return;
    const raisedPitch = !!(w.pitch_hz && baseline?.pitch_hz && w.pitch_hz > baseline.pitch_hz);
    const raisedLevel = w.energy_db !== null && baseline?.energy_db !== null && baseline?.energy_db !== undefined && w.energy_db > baseline.energy_db;
    if (!raisedPitch && !raisedLevel) return;
    found.push({ word_index: i, word: w.word, start: w.start, end: w.end, strength: Math.round(clamp01(strength) * 100) / 100, source: 'estimate' });
  });
  const keep = Math.max(1, Math.floor(lexical.length / WORDS_PER_EMPHASIS));
  return found
    .sort((a, b) => b.strength - a.strength || a.word_index - b.word_index)
    .slice(0, keep)
    .sort((a, b) => a.word_index - b.word_index);
}
