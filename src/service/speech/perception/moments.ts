import type { AnalysisSegment, AudienceEvent, Moment } from '../../../shared/schemas/analysis';
import { clock } from './clock';
import { inTimeOrder } from './profiles';
import { findRestarts } from './restarts';
import type { WordMeasure } from './words';

/**
 * Moments worth a look (README "Moments"): `select` the best complete sentences per speaker, `unusable` lines
 * spoilt by the signal or by other sound over them, `trim` dead air at a line's ends and false starts. Ids
 * are built from the type and the line ids, so they stay the same across runs of the same transcript.
 */
export const SELECT_MIN_TAKE = 0.6;
export const SELECT_MIN_QUALITY = 0.5;
/** Any quality issue this severe keeps a line out of the selects. */
export const SELECT_MAX_SEVERITY = 0.5;
export const SELECT_MIN_SECONDS = 1;
export const SELECT_SHARE = 0.15;
export const SELECT_MAX_PER_SPEAKER = 8;
/** A select that does not end a sentence is worth this much of a complete one. */
export const INCOMPLETE_FACTOR = 0.85;
/** A line starts a sentence after this much silence, or after another speaker or a sentence end. */
export const SENTENCE_GAP = 1;
export const UNUSABLE_SEVERITY = 0.6;
/** Issues that spoil a take; plosives, a low level and low-frequency rumble are repairable and do not. */
export const SPOILING_ISSUES: ReadonlySet<string> = new Set(['clipping', 'hum', 'noise', 'wind', 'reverb', 'off_mic']);
export const UNUSABLE_QUALITY = 0.3;
/** A quality score needs this much speech to condemn a line (DNSMOS on a word or two is unreliable). */
export const UNUSABLE_QUALITY_MIN_SPEECH = 1;
export const OVERLAP_SHARE = 0.3;
export const AUDIENCE_SHARE = 0.5;
export const DEAD_AIR = 0.6;
const PAD = 0.05;

export interface LineWords {
  words: ReadonlyArray<WordMeasure>;
  /** Indices of words ending a sentence (sentences.ts). */
  sentence_ends: ReadonlyArray<number>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r2 = (x: number) => Math.round(x * 100) / 100;
const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

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

function selects(ordered: AnalysisSegment[], lines: ReadonlyMap<number, LineWords>, spoilt: ReadonlySet<number>): Moment[] {
  const candidates: Moment[] = [];
  ordered.forEach((s, i) => {
    const words = lines.get(s.id);
    if (!s.perception || !s.delivery || !words || spoilt.has(s.id)) return;
    if (s.delivery.label !== 'good' && s.delivery.label !== 'great') return;
    if (s.quality.score < SELECT_MIN_QUALITY || s.quality.issues.some((x) => x.severity >= SELECT_MAX_SEVERITY)) return;
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

function unusable(ordered: AnalysisSegment[], events: ReadonlyArray<AudienceEvent>): Moment[] {
  const out: Moment[] = [];
  for (const s of ordered) {
    const speech = { start: s.speech_start, end: s.speech_end };
    const length = Math.max(1e-6, speech.end - speech.start);
    const reasons: Array<{ text: string; severity: number }> = [];
    for (const issue of s.quality.issues)
      if (SPOILING_ISSUES.has(issue.type) && issue.severity >= UNUSABLE_SEVERITY)
        reasons.push({ text: `${issue.type.replace(/_/g, ' ')} (${issue.evidence})`, severity: issue.severity });
    if (s.quality.score < UNUSABLE_QUALITY && length >= UNUSABLE_QUALITY_MIN_SPEECH) reasons.push({ text: `poor signal quality (score ${s.quality.score.toFixed(2)})`, severity: 1 - s.quality.score });
    const others = new Map<string, number>();
    for (const o of ordered) if (o.speaker !== s.speaker) others.set(o.speaker, (others.get(o.speaker) ?? 0) + overlap(speech, { start: o.speech_start, end: o.speech_end }));
    for (const [other, seconds] of others)
      if (seconds / length >= OVERLAP_SHARE) reasons.push({ text: `overlaps ${other}'s speech for ${seconds.toFixed(1)} s`, severity: Math.min(1, seconds / length) });
    for (const type of ['applause', 'cheering', 'laughter', 'music'] as const) {
      const covered = events.filter((e) => e.type === type).reduce((sum, e) => sum + overlap(speech, e), 0);
      if (covered / length >= AUDIENCE_SHARE) reasons.push({ text: `${type} over ${Math.round((covered / length) * 100)}% of the words`, severity: Math.min(1, covered / length) });
    }
    if (reasons.length === 0) continue;
    reasons.sort((a, b) => b.severity - a.severity);
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
  const spoilt = unusable(ordered, events);
  const spoiltIds = new Set(spoilt.flatMap((m) => m.segment_ids));
  return [...selects(ordered, lines, spoiltIds), ...spoilt, ...trims(ordered, lines)].sort(
    (a, b) => a.start - b.start || order[a.type] - order[b.type] || a.id.localeCompare(b.id),
  );
}
