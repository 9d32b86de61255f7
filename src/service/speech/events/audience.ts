import type { AmbienceSpan, AudienceEvent, MusicSpan } from '../../../shared/schemas/analysis';
import { ambienceProfile } from './ambience';
import type { LevelTrack } from '../../dsp/levels';
import type { Span } from '../types';
import { EVENT_CLASSES, GENERIC_MUSIC, type AudienceEventType } from './classes';
import { hysteresisRuns, mergeClose } from './hysteresis';
import { DEFAULT_STEP, strongestFall, strongestRise } from './onsets';
import { classIndices, maxScore, meanScores, patchCell, type TagFrames } from './tagger';

/**
 * Audience events (applause, laughter, cheering, music) from an audio tagger's patch scores: per type the
 * largest score among its AudioSet classes (classes.ts), two-threshold runs over the patches, runs closer
 * than a gap joined, boundaries moved onto energy onsets where the neighbourhood is not speech, and
 * events shorter than a minimum dropped. See README.md for the thresholds and why.
 */

export interface EventTypeParams {
  /** A run must reach this score somewhere (0–1). */
  enter: number;
  /** A run extends over neighbouring patches while the score stays at or above this. */
  exit: number;
  /** Shorter events are dropped, seconds. */
  minDuration: number;
  /** Events of the type closer than this are one event, seconds. */
  maxGap: number;
}

export const EVENT_PARAMS: Record<AudienceEventType, EventTypeParams> = {
  applause: { enter: 0.1, exit: 0.01, minDuration: 1.0, maxGap: 1.0 },
  laughter: { enter: 0.1, exit: 0.03, minDuration: 0.5, maxGap: 1.0 },
  cheering: { enter: 0.1, exit: 0.01, minDuration: 1.0, maxGap: 1.0 },
  music: { enter: 0.3, exit: 0.03, minDuration: 2.0, maxGap: 2.0 },
};

/** How far from the tagger's boundary an energy onset or offset is looked for, seconds. */
export const BOUNDARY_SEARCH = { outward: 1.0, inward: 0.75 };

export interface FloorLine extends Span {
  speaker: string;
}

export interface AudienceDetectorOptions {
  /** Frame levels of the recording (`frameLevels(pcm, 16000)`); without them boundaries stay on the 0.48 s grid. */
  levels?: LevelTrack;
  /** Length of the recording, seconds (default: the end of the last patch). */
  duration?: number;
  params?: Partial<Record<AudienceEventType, Partial<EventTypeParams>>>;
}

export interface AudienceDetection {
  events: AudienceEvent[];
  music: MusicSpan[];
  ambience_profile: AmbienceSpan[];
}

interface Candidate extends Span {
  type: AudienceEventType;
  peak: number;
  /** Patch range of the tagger's run(s), for scores. */
  firstPatch: number;
  lastPatch: number;
  measured: boolean;
}

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Event types a recognizer may write down as words ("ha ha", "woo"). */
const VOCAL: readonly AudienceEventType[] = ['laughter', 'cheering'];

/** The lines that are speech around the event, not the event itself written down as words. */
function ownLines(event: Span & { type: AudienceEventType }, lines: FloorLine[]): FloorLine[] {
  if (!VOCAL.includes(event.type)) return lines;
  return lines.filter((l) => overlap(l, event) < 0.8 * (l.end - l.start));
}

/**
 * The speech around an event: speech spans (voice activity) that a transcript line covers, leaving out
 * lines that lie at least 80% inside a laugh or cheer (a recognizer may write a laugh as words; that line
 * is the event).
 */
function talkAround(event: Span & { type: AudienceEventType }, speech: Span[], lines: FloorLine[]): Span[] {
  const kept = ownLines(event, lines);
  if (speech.length === 0) return kept;
  const out: Span[] = [];
  for (const s of speech)
    for (const l of kept)
      if (overlap(s, l) > 0) out.push({ start: Math.max(s.start, l.start), end: Math.min(s.end, l.end) });
  return out;
}

/** The stretch of [from, to] free of talk that lies nearest `anchor` (null when talk covers it all). */
function freeStretch(from: number, to: number, talk: Span[], anchor: number): Span | null {
  const free: Span[] = [];
  let cursor = from;
  for (const t of [...talk].sort((a, b) => a.start - b.start)) {
    if (t.end <= cursor || t.start >= to) continue;
    if (t.start > cursor) free.push({ start: cursor, end: t.start });
    cursor = Math.max(cursor, t.end);
  }
  if (cursor < to) free.push({ start: cursor, end: to });
  let best: Span | null = null;
  let bestDistance = Infinity;
  for (const f of free) {
    const distance = anchor < f.start ? f.start - anchor : anchor > f.end ? anchor - f.end : 0;
    if (distance < bestDistance) {
      best = f;
      bestDistance = distance;
    }
  }
  return best;
}

/** The strongest level step of one direction in [from, to], looked for only in the talk-free stretch nearest `anchor`. */
function stepNear(
  levels: LevelTrack,
  talk: Span[],
  from: number,
  to: number,
  anchor: number,
  find: typeof strongestRise,
): number | null {
  const free = freeStretch(from, to, talk, anchor);
  return (free && find(levels, free.start, free.end, DEFAULT_STEP)?.time) ?? null;
}

/**
 * Moves the boundaries onto the level steps nearest the tagger's, searching only where nobody speaks
 * (under speech the level rises and falls with every syllable and says nothing about the event).
 */
function refine(c: Candidate, levels: LevelTrack, talk: Span[], duration: number): Candidate {
  const { outward, inward } = BOUNDARY_SEARCH;
  const start = stepNear(
    levels,
    talk,
    Math.max(0, c.start - outward),
    Math.min(c.end, c.start + inward),
    c.start,
    strongestRise,
  );
  const from = start ?? c.start;
  const end = stepNear(
    levels,
    talk,
    Math.max(from, c.end - inward),
    Math.min(duration, c.end + outward),
    c.end,
    strongestFall,
  );
  const out = {
    ...c,
    start: from,
    end: end ?? c.end,
    measured: c.measured || start !== null || end !== null,
  };
  return out.end > out.start ? out : c;
}

/** Who had the floor: the speaker of the line under the event's start, else the last line before it, else the first line during it. */
function floorHolder(event: Span & { type: AudienceEventType }, lines: FloorLine[]): string | null {
  const own = ownLines(event, lines);
  const at = own.find((l) => l.start <= event.start && l.end > event.start);
  if (at) return at.speaker;
  let before: FloorLine | null = null;
  for (const l of own) if (l.end <= event.start && (!before || l.end > before.end)) before = l;
  if (before) return before.speaker;
  const during = own.filter((l) => overlap(l, event) > 0).sort((a, b) => a.start - b.start)[0];
  return during?.speaker ?? null;
}

/** Speech under the event counts when it covers at least 0.5 s or a quarter of the event, whichever is less. */
export function isDuringSpeech(event: Span, talk: Span[]): boolean {
  const heard = talk.reduce((sum, t) => sum + overlap(t, event), 0);
  return heard >= Math.min(0.5, 0.25 * (event.end - event.start));
}

function musicLabel(tags: TagFrames, span: Span): { label: string; score: number } {
  const mean = meanScores(tags, span);
  const classes = classIndices(tags.labels, EVENT_CLASSES.music);
  let label = 'Music';
  let best = 0;
  for (const c of classes) {
    const name = tags.labels[c]!;
    if ((GENERIC_MUSIC as readonly string[]).includes(name)) continue;
    if (mean[c]! > best) {
      best = mean[c]!;
      label = name;
    }
  }
  // A specific class names the music only when the model is fairly sure of it.
  if (best < 0.15) label = 'Music';
  let score = 0;
  for (const c of classes) score = Math.max(score, mean[c]!);
  return { label, score };
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Applause, laughter, cheering and music in the recording, the music spans with their labels, and the background profile. */
export function detectAudienceEvents(
  tags: TagFrames,
  speech: Span[],
  lines: FloorLine[],
  options: AudienceDetectorOptions = {},
): AudienceDetection {
  const duration = options.duration ?? (tags.patches > 0 ? (tags.patches - 1) * tags.hop + tags.window : 0);
  const events: AudienceEvent[] = [];
  const music: MusicSpan[] = [];
  for (const type of Object.keys(EVENT_CLASSES) as AudienceEventType[]) {
    const params = { ...EVENT_PARAMS[type], ...options.params?.[type] };
    const scores = maxScore(tags, classIndices(tags.labels, EVENT_CLASSES[type]));
    let candidates: Candidate[] = hysteresisRuns(scores, params.enter, params.exit).map((run) => ({
      type,
      start: Math.max(0, patchCell(tags, run.first).start),
      end: Math.min(duration, patchCell(tags, run.last).end),
      peak: run.peak,
      firstPatch: run.first,
      lastPatch: run.last,
      measured: false,
    }));
    const join = (a: Candidate, b: Candidate): Candidate => ({
      ...a,
      end: b.end,
      peak: Math.max(a.peak, b.peak),
      lastPatch: b.lastPatch,
      measured: a.measured || b.measured,
    });
    candidates = mergeClose(candidates, params.maxGap, join);
    if (options.levels) {
      const levels = options.levels;
      candidates = mergeClose(
        candidates.map((c) => refine(c, levels, talkAround(c, speech, lines), duration)),
        params.maxGap,
        join,
      );
    }
    for (const c of candidates) {
      if (c.end - c.start < params.minDuration) continue;
      const talk = talkAround(c, speech, lines);
      const span = { start: round(c.start), end: round(c.end) };
      const during_speech = isDuringSpeech(c, talk);
      events.push({
        type,
        ...span,
        speaker: floorHolder(c, lines),
        during_speech,
        confidence: round(c.peak, 3),
        sources: c.measured ? ['heard', 'measured'] : ['heard'],
      });
      if (type === 'music')
        music.push({ ...span, ...musicLabelRounded(tags, c), during_speech, source: 'heard' });
    }
  }
  events.sort((a, b) => a.start - b.start || a.type.localeCompare(b.type));
  return { events, music, ambience_profile: ambienceProfile(tags, duration) };
}

function musicLabelRounded(tags: TagFrames, span: Span): { label: string; score: number } {
  const { label, score } = musicLabel(tags, span);
  return { label, score: round(score, 3) };
}
