import type { Pause } from '../../../shared/schemas/analysis';
import type { LevelTrack } from '../../dsp/levels';
import { isFillerWord } from './syllables';

/**
 * Pauses inside a line, from word timings and voice activity. The rules (docs/analysis.md, `prosody.pauses[]`):
 * - A silent pause is a run of frames below the line's silence level lasting at least MIN_PAUSE
 *   (0.25 s, the usual threshold since Goldman-Eisler: shorter gaps are stop closures and transitions).
 * - A gap of at least MIN_PAUSE between recognized words that holds sound is a pause too: filled when a
 *   voiced, steady stretch (≥ MIN_FILLED voiced, pitch within STEADY_PITCH_ST, level within STEADY_LEVEL_DB)
 *   fills it — an "uh" the recognizer wrote as a noise token — otherwise a breath or noise pause.
 * - A filler word the recognizer wrote (uh, um, er…) is a filled pause over its own span.
 * Overlapping or touching candidates merge; a pause is filled when any part of it is.
 */
export const MIN_PAUSE = 0.25;
export const MIN_FILLED = 0.2;
export const STEADY_PITCH_ST = 1.5;
export const STEADY_LEVEL_DB = 4;
/** A silent pause at least this long that does not end a sentence counts as a hesitation. */
export const HESITATION_PAUSE = 0.5;
const MERGE_GAP = 0.05;

export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

export interface PitchFrames {
  timeStep: number;
  /** Time of frame 0 on the recording's clock. */
  start: number;
  /** Hz; 0 = unvoiced. */
  f0: Float32Array;
}

export interface PauseInput {
  line: { start: number; end: number };
  words: TimedWord[];
  /** Frame levels of the recording (frame k spans [k·hop, k·hop + frame) seconds). */
  levels: LevelTrack;
  pitch: PitchFrames | null;
  /** Frames below this level (dBFS) are silent. */
  silenceDb: number;
  /** Indices into `words` of words that end a sentence. */
  sentenceEnds?: ReadonlySet<number>;
}

export interface PauseAnalysis {
  pauses: Pause[];
  speech_start: number;
  speech_end: number;
  hesitations: number;
  longest_pause: number;
  /** Total pause time inside the speech span, seconds. */
  pause_seconds: number;
}

interface Candidate {
  start: number;
  end: number;
  filled: boolean;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The frame centred nearest to time t. */
function frameIndex(levels: LevelTrack, t: number): number {
  return Math.round((t - levels.frame / 2) / levels.hop);
}

function frameCentre(levels: LevelTrack, k: number): number {
  return k * levels.hop + levels.frame / 2;
}

function isActive(levels: LevelTrack, k: number, silenceDb: number): boolean {
  return k >= 0 && k < levels.db.length && levels.db[k]! >= silenceDb;
}

/** Speech span of the line: the first and last words, moved to where sound really starts and stops nearby. */
function speechSpan(input: PauseInput): { start: number; end: number } {
  const { words, levels, silenceDb, line } = input;
  const lexical = words.filter((w) => w.end > w.start);
  if (lexical.length === 0) return { start: line.start, end: line.end };
  const first = lexical[0]!;
  const last = lexical[lexical.length - 1]!;
  let start = first.start;
  let end = last.end;
  const a = Math.max(0, frameIndex(levels, Math.max(line.start, first.start - 0.2)));
  const b = frameIndex(levels, Math.min(first.end, first.start + 0.2));
  for (let k = a; k <= b; k++) {
    if (isActive(levels, k, silenceDb)) {
      start = Math.max(line.start, frameCentre(levels, k) - levels.hop / 2);
      break;
    }
  }
  const c = frameIndex(levels, Math.min(line.end, last.end + 0.2));
  const d = frameIndex(levels, Math.max(last.start, last.end - 0.2));
  for (let k = Math.min(c, levels.db.length - 1); k >= d; k--) {
    if (isActive(levels, k, silenceDb)) {
      end = Math.min(line.end, frameCentre(levels, k) + levels.hop / 2);
      break;
    }
  }
  return end > start ? { start, end } : { start: first.start, end: last.end };
}

/** Runs of silent frames of at least MIN_PAUSE inside [from, to]. */
function silentRuns(levels: LevelTrack, silenceDb: number, from: number, to: number): Candidate[] {
  const runs: Candidate[] = [];
  const a = Math.max(0, frameIndex(levels, from));
  const b = Math.min(levels.db.length - 1, frameIndex(levels, to));
  let runStart = -1;
  for (let k = a; k <= b + 1; k++) {
    const silent = k <= b && !isActive(levels, k, silenceDb);
    if (silent && runStart < 0) runStart = k;
    if (!silent && runStart >= 0) {
      const start = Math.max(from, frameCentre(levels, runStart) - levels.hop / 2);
      const end = Math.min(to, frameCentre(levels, k - 1) + levels.hop / 2);
      if (end - start >= MIN_PAUSE - 1e-9) runs.push({ start, end, filled: false });
      runStart = -1;
    }
  }
  return runs;
}

function semitones(hz: number): number {
  return 12 * Math.log2(hz);
}

function spread(values: number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
}

/** True when [start, end] holds a voiced stretch of at least MIN_FILLED with steady pitch and level. */
export function hasSteadyVoicing(input: PauseInput, start: number, end: number): boolean {
  const { pitch, levels, silenceDb } = input;
  if (!pitch) return false;
  const a = Math.max(0, Math.ceil((start - pitch.start) / pitch.timeStep));
  const b = Math.min(pitch.f0.length - 1, Math.floor((end - pitch.start) / pitch.timeStep));
  let best = 0;
  let run: number[] = [];
  const flush = () => {
    if (run.length * pitch.timeStep >= MIN_FILLED - 1e-9) {
      const st = run.map((k) => semitones(pitch.f0[k]!));
      const db = run.map((k) => levels.db[Math.min(levels.db.length - 1, Math.max(0, frameIndex(levels, pitch.start + k * pitch.timeStep)))]!);
      if (spread(st) <= STEADY_PITCH_ST && spread(db) <= STEADY_LEVEL_DB) best = Math.max(best, run.length);
    }
    run = [];
  };
  for (let k = a; k <= b; k++) {
    const t = pitch.start + k * pitch.timeStep;
    if (pitch.f0[k]! > 0 && isActive(levels, frameIndex(levels, t), silenceDb)) run.push(k);
    else flush();
  }
  flush();
  return best > 0;
}

function merge(candidates: Candidate[]): Candidate[] {
  const sorted = [...candidates].sort((a, b) => a.start - b.start);
  const out: Candidate[] = [];
  for (const c of sorted) {
    const prev = out[out.length - 1];
    if (prev && c.start <= prev.end + MERGE_GAP) {
      prev.end = Math.max(prev.end, c.end);
      prev.filled ||= c.filled;
    } else out.push({ ...c });
  }
  return out;
}

export function analysePauses(input: PauseInput): PauseAnalysis {
  const span = speechSpan(input);
  const candidates: Candidate[] = silentRuns(input.levels, input.silenceDb, span.start, span.end);
  const words = input.words;
  const lexicalIdx = words.map((w, i) => (isFillerWord(w.word) ? -1 : i)).filter((i) => i >= 0);
  for (let j = 1; j < lexicalIdx.length; j++) {
    const before = words[lexicalIdx[j - 1]!]!;
    const after = words[lexicalIdx[j]!]!;
    const gapStart = Math.max(before.end, span.start);
    const gapEnd = Math.min(after.start, span.end);
    if (gapEnd - gapStart < MIN_PAUSE) continue;
    const silentInside = candidates.some((c) => c.start < gapEnd && c.end > gapStart);
    if (!silentInside) candidates.push({ start: gapStart, end: gapEnd, filled: hasSteadyVoicing(input, gapStart, gapEnd) });
    else if (hasSteadyVoicing(input, gapStart, gapEnd)) candidates.push({ start: gapStart, end: gapEnd, filled: true });
  }
  for (const w of words) {
    if (isFillerWord(w.word) && w.end > w.start) candidates.push({ start: Math.max(w.start, span.start), end: Math.min(w.end, span.end), filled: true });
  }
  const merged = merge(candidates).filter((c) => c.end - c.start >= (c.filled ? MIN_FILLED : MIN_PAUSE) - 1e-9);
  const pauses: Pause[] = merged.map((c) => {
    let afterIdx = -1;
    // The last word begun before the pause (a recognizer often stretches a word over the silence after it).
    for (const i of lexicalIdx) if (words[i]!.start < c.start) afterIdx = i;
    return {
      start: round(c.start),
      end: round(c.end),
      duration: round(c.end - c.start),
      after_word: afterIdx >= 0 ? words[afterIdx]!.word : '',
      filled: c.filled,
      sentence_end: afterIdx >= 0 && (input.sentenceEnds?.has(afterIdx) ?? false),
    };
  });
  const hesitations = pauses.filter((p) => p.filled || (!p.sentence_end && p.duration >= HESITATION_PAUSE)).length;
  return {
    pauses,
    speech_start: round(span.start),
    speech_end: round(span.end),
    hesitations,
    longest_pause: pauses.reduce((m, p) => Math.max(m, p.duration), 0),
    pause_seconds: round(merged.reduce((s, c) => s + (c.end - c.start), 0)),
  };
}
