import type { AnalysisSegment, AudienceEvent, Moment } from '../../../shared/schemas/analysis';
import { clock } from './clock';
import { inTimeOrder } from './profiles';
import { findRestarts } from './restarts';
import { lineVerdict, SELECTABLE, spoilers, type Spoiler } from './verdict';
import type { WordMeasure } from './words';

/**
 * Moments worth a look (README "Moments"): `select` the best complete sentences per speaker, `unusable` lines
 * spoilt by the signal or by other sound over them, `trim` dead air at a line's ends and false starts. Ids
 * are built from the type and the line ids, so they stay the same across runs of the same transcript.
 */
export const SELECT_MIN_TAKE = 0.6;
export const SELECT_MIN_SECONDS = 1;
export const SELECT_SHARE = 0.15;
export const SELECT_MAX_PER_SPEAKER = 8;
/** A select that does not end a sentence is worth this much of a complete one. */
export const INCOMPLETE_FACTOR = 0.85;
/** A line starts a sentence after this much silence, or after another speaker or a sentence end. */
export const SENTENCE_GAP = 1;
export const DEAD_AIR = 0.6;
const PAD = 0.05;

export interface LineWords {
  words: ReadonlyArray<WordMeasure>;
  /** Indices of words ending a sentence (sentences.ts). */
  sentence_ends: ReadonlyArray<number>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r2 = (x: number) => Math.round(x * 100) / 100;

function lastLexical(words: ReadonlyArray<WordMeasure>): number {
  for (let i = words.length - 1; i >= 0; i--) if (!words[i]!.filler) return i;
  return -1;
}

/** The span of complete sentences in a line: from its first sentence start to its last sentence end. */
export function completeSpan(line: LineWords, startsSentence: boolean): { first: number; last: number } | null {
  const { words, sentence_ends } = line;
  const lexical = words.map((w, i) => (w.filler ? -1 : i)).filter((i) => i >= 0);
  if (lexical.length === 0) return null;
  const starts: number[] = startsSentence ? [lexical[0]!] : [];
  for (const e of sentence_ends) {
    const next = lexical.find((i) => i > e);
    if (next !== undefined) starts.push(next);
  }
  if (starts.length === 0) return null;
  const first = Math.min(...starts);
  const last = Math.max(-1, ...sentence_ends.filter((e) => e >= first));
  return last >= first ? { first, last } : null;
}

function selects(ordered: AnalysisSegment[], lines: ReadonlyMap<number, LineWords>, spoilt: ReadonlyMap<number, Spoiler[]>): Moment[] {
  const candidates: Moment[] = [];
  ordered.forEach((s, i) => {
    const words = lines.get(s.id);
    if (!s.perception || !s.delivery || !words) return;
    // The verdict the note was written from (verdict.ts): only a line usable as it is, or after an edit, is a select.
    const verdict = lineVerdict({
      spoilers: spoilt.get(s.id) ?? [],
      quality: s.quality,
      labels: s.perception.delivery,
      grade: s.delivery.label,
      restarts: findRestarts(words.words).length,
    });
    if (!SELECTABLE.has(verdict.standing)) return;
    const prev = ordered[i - 1];
    const prevWords = prev ? lines.get(prev.id) : undefined;
    const prevEnded = !prev || prev.speaker !== s.speaker || s.start - prev.end >= SENTENCE_GAP || (!!prevWords && prevWords.sentence_ends.includes(lastLexical(prevWords.words)));
    const span = completeSpan(words, prevEnded);
    const complete = span !== null;
    const first = span ? words.words[span.first]! : null;
    const last = span ? words.words[span.last]! : null;
    const start = first ? Math.max(s.start, first.start - PAD) : s.speech_start;
    const end = last ? Math.min(s.end, last.end + PAD) : s.speech_end;
    if (end - start < SELECT_MIN_SECONDS) return;
    const score = r2(s.perception.take_quality * (complete ? 1 : INCOMPLETE_FACTOR));
    if (score < SELECT_MIN_TAKE) return;
    const text = span ? words.words.slice(span.first, span.last + 1).map((w) => w.word).join(' ') : s.text;
    const what = complete ? 'Complete sentence' : 'Clean stretch (does not end a sentence)';
    candidates.push({
      id: `select-${s.id}`,
      type: 'select',
      start: r3(start),
      end: r3(end),
      speaker: s.speaker,
      score,
      reason: `${what}: ${s.delivery.label} delivery (${s.delivery.score.toFixed(2)}), signal quality ${s.quality.score.toFixed(2)}`,
      segment_ids: [s.id],
      text,
      sentence_complete: complete,
    });
  });
  const out: Moment[] = [];
  for (const speaker of new Set(candidates.map((c) => c.speaker))) {
    const lineCount = ordered.filter((s) => s.speaker === speaker).length;
    const keep = Math.min(SELECT_MAX_PER_SPEAKER, Math.max(1, Math.ceil(lineCount * SELECT_SHARE)));
    out.push(
      ...candidates
        .filter((c) => c.speaker === speaker)
        .sort((a, b) => b.score - a.score || a.start - b.start)
        .slice(0, keep),
    );
  }
  return out;
}

/** The lines verdict.ts finds spoilt, with their reasons, worst first. */
function spoiltLines(ordered: AnalysisSegment[], events: ReadonlyArray<AudienceEvent>): Map<number, Spoiler[]> {
  const out = new Map<number, Spoiler[]>();
  for (const s of ordered) {
    const reasons = spoilers(s, ordered, events);
    if (reasons.length) out.set(s.id, reasons);
  }
  return out;
}

function unusable(ordered: AnalysisSegment[], spoilt: ReadonlyMap<number, Spoiler[]>): Moment[] {
  const out: Moment[] = [];
  for (const s of ordered) {
    const reasons = spoilt.get(s.id);
    if (!reasons) continue;
    const text = reasons.map((x) => x.text).join('; ');
    out.push({
      id: `unusable-${s.id}`,
      type: 'unusable',
      start: s.start,
      end: s.end,
      speaker: s.speaker,
      score: r2(reasons[0]!.severity),
      reason: text.charAt(0).toUpperCase() + text.slice(1),
      segment_ids: [s.id],
    });
  }
  return out;
}

function trims(ordered: AnalysisSegment[], lines: ReadonlyMap<number, LineWords>): Moment[] {
  const out: Moment[] = [];
  for (const s of ordered) {
    const lead = s.speech_start - s.start;
    if (lead >= DEAD_AIR)
      out.push({ id: `trim-${s.id}-lead`, type: 'trim', start: s.start, end: s.speech_start, speaker: s.speaker, score: r2(Math.min(1, lead / 2)), reason: `${lead.toFixed(1)} s of dead air before the first word`, segment_ids: [s.id] });
    const tail = s.end - s.speech_end;
    if (tail >= DEAD_AIR)
      out.push({ id: `trim-${s.id}-tail`, type: 'trim', start: s.speech_end, end: s.end, speaker: s.speaker, score: r2(Math.min(1, tail / 2)), reason: `${tail.toFixed(1)} s of dead air after the last word`, segment_ids: [s.id] });
    const words = lines.get(s.id)?.words ?? [];
    for (const restart of findRestarts(words)) {
      const a = words[restart.first]!;
      const b = words[restart.repeat]!;
      if (!(b.start > a.start)) continue;
      out.push({
        id: `trim-${s.id}-restart-${restart.first}`,
        type: 'trim',
        start: a.start,
        end: b.start,
        speaker: s.speaker,
        score: 0.8,
        reason: `False start: “${restart.words}” is said again at ${clock(b.start)}; cut the first telling`,
        segment_ids: [s.id],
      });
    }
  }
  return out;
}

export function findMoments(segments: ReadonlyArray<AnalysisSegment>, lines: ReadonlyMap<number, LineWords>, events: ReadonlyArray<AudienceEvent>): Moment[] {
  const ordered = inTimeOrder(segments);
  const order = { select: 0, unusable: 1, trim: 2 } as const;
  const spoilt = spoiltLines(ordered, events);
  return [...selects(ordered, lines, spoilt), ...unusable(ordered, spoilt), ...trims(ordered, lines)].sort(
    (a, b) => a.start - b.start || order[a.type] - order[b.type] || a.id.localeCompare(b.id),
  );
}
