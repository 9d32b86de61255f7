import type { Ambience, AmbienceSpan } from '../../../shared/schemas/analysis';
import { dbToPower, frameRange, powerToDb, type LevelTrack } from '../../dsp/levels';
import { quantile } from '../../dsp/stats';
import type { Span } from '../types';
import { AMBIENCE_CLASSES, AMBIENCE_FAMILIES, LAYER_CLASSES } from './classes';
import { classIndices, meanScores, patchCell, type TagFrames } from './tagger';

/**
 * The background of a recording: what the tagger hears behind the speech (`ambience_profile`), and per
 * line what lies under it and how loud it is against the speech (`Ambience`). Labels are the tagger's
 * (heard); levels and margins are read from the signal (measured). README.md gives the reasons for the
 * numbers below.
 */

/** Patches per profile window (2.4 s): long enough to hear a background between words. */
export const PROFILE_WINDOW = 5;
/** A window names its background only when that class's mean score reaches this… */
export const PROFILE_MIN_SCORE = 0.02;
/** …or this, when speech fills the window (Speech ≥ 0.5 in every patch): speech masks backgrounds and the weak scores under it wander. */
export const PROFILE_MIN_SCORE_UNDER_SPEECH = 0.1;
/** A class is a layer under a line when its mean score over the line reaches this (speech masks backgrounds, so scores under speech are low). */
export const LAYER_MIN_SCORE = 0.02;
export const MAX_LAYERS = 3;
/** The background competes with the speech when the speech is less than this many dB above it. */
export const COMPETE_MARGIN_DB = 10;
/** Quantile of a line's 25 ms frame levels read as the background under it. */
export const BACKGROUND_QUANTILE = 0.1;
/** Lowest margin reported: below it the speech cannot be told from the background by level alone. */
export const MIN_MARGIN_DB = -10;

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

interface Window extends Span {
  /** Index into AMBIENCE_FAMILIES, or -1 when nothing was heard clearly enough. */
  family: number;
  /** Mean score of every ambience class over the window. */
  scores: Float32Array;
  heard: boolean;
}

/**
 * The background heard over the recording, as spans. Each 2.4 s window takes the ambience class with the
 * highest mean score over its patches where speech does not dominate (Speech < 0.5), if that reaches
 * PROFILE_MIN_SCORE; a window that is all speech needs PROFILE_MIN_SCORE_UNDER_SPEECH over all its
 * patches. Other windows carry the background of the nearest window that heard one (under speech, the
 * background is the one heard around it). Neighbouring windows of one family of classes make one span,
 * named by the family's class with the highest mean score over the windows that heard it; the score is
 * that mean.
 */
export function ambienceProfile(tags: TagFrames, duration: number): AmbienceSpan[] {
  const classes = classIndices(tags.labels, AMBIENCE_CLASSES);
  const speechClass = classIndices(tags.labels, ['Speech'])[0]!;
  const familyOf = new Map(AMBIENCE_FAMILIES.flatMap((members, f) => members.map((m) => [m, f] as const)));
  const windows: Window[] = [];
  for (let first = 0; first < tags.patches; first += PROFILE_WINDOW) {
    const last = Math.min(tags.patches, first + PROFILE_WINDOW) - 1;
    // Patches where speech does not dominate hear the background best; use them when the window has any.
    const clear: number[] = [];
    for (let p = first; p <= last; p++)
      if (tags.scores[p * tags.labels.length + speechClass]! < 0.5) clear.push(p);
    const scores = new Float32Array(classes.length);
    const from = clear.length ? clear : Array.from({ length: last - first + 1 }, (_, k) => first + k);
    for (const p of from)
      for (let k = 0; k < classes.length; k++)
        scores[k]! += tags.scores[p * tags.labels.length + classes[k]!]! / from.length;
    let best = 0;
    for (let k = 1; k < scores.length; k++) if (scores[k]! > scores[best]!) best = k;
    const heard = scores[best]! >= (clear.length ? PROFILE_MIN_SCORE : PROFILE_MIN_SCORE_UNDER_SPEECH);
    windows.push({
      start: first === 0 ? 0 : patchCell(tags, first).start,
      end: last === tags.patches - 1 ? duration : patchCell(tags, last).end,
      family: heard ? familyOf.get(AMBIENCE_CLASSES[best]!)! : -1,
      scores,
      heard,
    });
  }
  fillUnheard(windows);
  const spans: AmbienceSpan[] = [];
  for (let i = 0; i < windows.length;) {
    const family = windows[i]!.family;
    let j = i;
    while (j + 1 < windows.length && windows[j + 1]!.family === family) j++;
    if (family >= 0) spans.push(nameSpan(windows.slice(i, j + 1), family, duration));
    i = j + 1;
  }
  return spans;
}

function nameSpan(run: Window[], family: number, duration: number): AmbienceSpan {
  const heard = run.filter((w) => w.heard);
  let label = AMBIENCE_FAMILIES[family]![0]!;
  let score = 0;
  for (const name of AMBIENCE_FAMILIES[family]!) {
    const k = AMBIENCE_CLASSES.indexOf(name);
    const mean = heard.reduce((sum, w) => sum + w.scores[k]!, 0) / Math.max(1, heard.length);
    if (mean > score) {
      score = mean;
      label = name;
    }
  }
  return {
    start: round(run[0]!.start),
    end: round(Math.min(duration, run[run.length - 1]!.end)),
    label,
    score: round(score, 3),
  };
}

/** Unheard windows take the family of the nearest heard window (ties go to the earlier one). */
function fillUnheard(windows: Window[]): void {
  const heard = windows.flatMap((w, i) => (w.heard ? [i] : []));
  if (heard.length === 0) return;
  let k = 0;
  for (let i = 0; i < windows.length; i++) {
    if (windows[i]!.heard) continue;
    while (k + 1 < heard.length && heard[k + 1]! < i) k++;
    const before = heard[k]! < i ? heard[k]! : null;
    const after = before === null ? heard[k]! : (heard[k + 1] ?? null);
    const source = before === null ? after! : after === null || i - before <= after - i ? before : after;
    windows[i]!.family = windows[source]!.family;
  }
}

export interface LineAmbienceInput {
  /** Frame levels of the recording (`frameLevels(pcm, 16000)`, 25 ms frames every 10 ms). */
  levels: LevelTrack;
  /** The tagger's output; without it the line gets levels but no layers. */
  tags?: TagFrames | null;
  /** Voice activity spans; the speech level is taken over the line's part of them (default: the whole line). */
  speech?: Span[];
}

/** Speech power over the speech frames of a line, and the frames of the whole line. */
function lineFrames(
  line: Span,
  levels: LevelTrack,
  speech: Span[] | undefined,
): { all: Float32Array; speechPower: number } {
  const [a, b] = frameRange(levels, line.start, line.end);
  const all = levels.db.subarray(a, b);
  let sum = 0;
  let n = 0;
  const parts = speech?.length ? speech.filter((s) => s.end > line.start && s.start < line.end) : [line];
  for (const s of parts.length ? parts : [line]) {
    const [i, j] = frameRange(levels, Math.max(line.start, s.start), Math.min(line.end, s.end));
    for (let f = i; f < j; f++) {
      sum += dbToPower(levels.db[f]!);
      n++;
    }
  }
  return { all, speechPower: n ? sum / n : 0 };
}

/**
 * The background under one line. Measured: `level_db` is the 20th percentile of the line's 25 ms frame
 * levels (speech leaves gaps between syllables and words where only the background sounds);
 * `margin_db` is the speech level (power over the line's speech, background power taken off) minus that.
 * Heard: `layers` are the background, music and audience classes the tagger scores under the line.
 */
export function lineAmbience(line: Span, input: LineAmbienceInput): Ambience {
  const { all, speechPower } = lineFrames(line, input.levels, input.speech);
  let level: number | null = null;
  let margin: number | null = null;
  if (all.length > 0) {
    level = quantile(all, BACKGROUND_QUANTILE) ?? NaN;
    const background = dbToPower(level);
    margin = Math.max(MIN_MARGIN_DB, powerToDb(Math.max(0, speechPower - background)) - level);
  }
  const layers: Ambience['layers'] = [];
  if (input.tags && input.tags.patches > 0) {
    const mean = meanScores(input.tags, line);
    for (const c of classIndices(input.tags.labels, LAYER_CLASSES)) {
      if (mean[c]! >= LAYER_MIN_SCORE)
        layers.push({ label: input.tags.labels[c]!, score: round(mean[c]!, 3), source: 'heard' });
    }
    layers.sort((x, y) => y.score - x.score);
    layers.splice(MAX_LAYERS);
  }
  return {
    layers,
    sound: {
      label: layers[0]?.label ?? null,
      level_db: level === null ? null : round(level, 1),
      margin_db: margin === null ? null : round(margin, 1),
    },
    competes: margin !== null && margin < COMPETE_MARGIN_DB,
    source: 'measured',
  };
}
