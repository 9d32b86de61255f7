import type { AudienceEvent, Delivery, DeliveryLabel, QualityIssue } from '../../../shared/schemas/analysis';

/**
 * What a line is worth to an editor, decided once (README "Verdict"). The note (note.ts) is written from the
 * verdict and the moments (moments.ts) read the same verdict: `unusable` moments are the lines it finds
 * spoilt, `select` moments come only from lines it finds usable. Nothing else judges a line, so a line's note,
 * its quality issues, its delivery and the moments over it cannot disagree (consistency.ts states the rules).
 */
export type Standing =
  /** Spoilt by the signal, another voice or the audience: no repair helps. */
  | 'unusable'
  /** A signal issue severe enough to decide the take: repair it or use another. */
  | 'repair'
  /** The delivery calls for another take. */
  | 'retake'
  /** The signal is poor (low quality score) though no single issue explains it: listen before using it. */
  | 'check'
  /** Usable after an edit: a gain change, a tightening, a trimmed false start. */
  | 'fix'
  /** Usable as it is. */
  | 'usable';

/** A quality issue this severe decides the take (note, selects). */
export const ISSUE_SEVERITY = 0.5;
/** A spoiling issue this severe makes the line unusable. */
export const UNUSABLE_SEVERITY = 0.6;
/** Issues that spoil a take; plosives, a low level and low-frequency rumble are repairable and do not. */
export const SPOILING_ISSUES: ReadonlySet<string> = new Set(['clipping', 'hum', 'noise', 'wind', 'reverb', 'off_mic']);
export const UNUSABLE_QUALITY = 0.3;
/** A quality score needs this much speech to condemn a line (DNSMOS on a word or two is unreliable). */
export const UNUSABLE_QUALITY_MIN_SPEECH = 1;
/** Another speaker over this share of the line's speech span makes it unusable. */
export const OVERLAP_SHARE = 0.3;
/** Applause, cheering, laughter or music over this share of it makes it unusable. */
export const AUDIENCE_SHARE = 0.5;
/** Under this quality score the signal needs a check: the line is neither usable as it is nor a select. */
export const USABLE_QUALITY = 0.5;
/** Delivery labels that call for another take, most pressing first. */
export const RETAKE_LABELS: ReadonlyArray<DeliveryLabel> = ['mumbled', 'hesitant', 'rushed', 'trailing_off', 'flat'];
/** Delivery labels an edit fixes (gain, tightening). */
export const FIX_LABELS: ReadonlyArray<DeliveryLabel> = ['quiet', 'slow'];
/** Standings a `select` moment may come from. */
export const SELECTABLE: ReadonlySet<Standing> = new Set<Standing>(['usable', 'fix']);

/** One reason a line is unusable, with how bad it is (0–1) for ordering. */
export interface Spoiler {
  text: string;
  severity: number;
}

type SpeechSpan = { speaker: string; speech_start: number; speech_end: number };
type Line = SpeechSpan & { quality: { score: number; issues: ReadonlyArray<QualityIssue> } };

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/**
 * Why a line is unusable, worst first (empty: it is not): a spoiling issue of severity ≥ UNUSABLE_SEVERITY, a
 * quality score under UNUSABLE_QUALITY on at least UNUSABLE_QUALITY_MIN_SPEECH of speech, another speaker over
 * ≥ OVERLAP_SHARE of its speech span, or audience sound or music over ≥ AUDIENCE_SHARE of it.
 */
export function spoilers(line: Line, lines: ReadonlyArray<SpeechSpan>, events: ReadonlyArray<AudienceEvent>): Spoiler[] {
  const speech = { start: line.speech_start, end: line.speech_end };
  const length = Math.max(1e-6, speech.end - speech.start);
  const out: Spoiler[] = [];
  for (const issue of line.quality.issues)
    if (SPOILING_ISSUES.has(issue.type) && issue.severity >= UNUSABLE_SEVERITY) out.push({ text: `${issue.type.replace(/_/g, ' ')} (${issue.evidence})`, severity: issue.severity });
  if (line.quality.score < UNUSABLE_QUALITY && length >= UNUSABLE_QUALITY_MIN_SPEECH) out.push({ text: `poor signal quality (score ${line.quality.score.toFixed(2)})`, severity: 1 - line.quality.score });
  const others = new Map<string, number>();
  for (const o of lines) if (o.speaker !== line.speaker) others.set(o.speaker, (others.get(o.speaker) ?? 0) + overlap(speech, { start: o.speech_start, end: o.speech_end }));
  for (const [other, seconds] of others) if (seconds / length >= OVERLAP_SHARE) out.push({ text: `overlaps ${other}'s speech for ${seconds.toFixed(1)} s`, severity: Math.min(1, seconds / length) });
  for (const type of ['applause', 'cheering', 'laughter', 'music'] as const) {
    const covered = events.filter((e) => e.type === type).reduce((sum, e) => sum + overlap(speech, e), 0);
    if (covered / length >= AUDIENCE_SHARE) out.push({ text: `${type} over ${Math.round((covered / length) * 100)}% of the words`, severity: Math.min(1, covered / length) });
  }
  return out.sort((a, b) => b.severity - a.severity);
}

export interface VerdictInput {
  /** The line's spoilers (`spoilers()`), worst first. */
  spoilers: ReadonlyArray<Spoiler>;
  quality: { score: number; issues: ReadonlyArray<QualityIssue> };
  labels: ReadonlyArray<DeliveryLabel>;
  grade: Delivery['label'];
  /** False starts found in the line (restarts.ts). */
  restarts: number;
}

export interface Verdict {
  standing: Standing;
  spoilers: ReadonlyArray<Spoiler>;
  /** The worst quality issue when it is at least ISSUE_SEVERITY. */
  issue: QualityIssue | null;
  /** The line's delivery problems (RETAKE_LABELS then FIX_LABELS present), most pressing first. */
  problems: DeliveryLabel[];
}

/** The line's standing: the first of unusable, repair, retake, check, fix, usable that holds. */
export function lineVerdict(input: VerdictInput): Verdict {
  const worst = [...input.quality.issues].sort((a, b) => b.severity - a.severity)[0];
  const issue = worst && worst.severity >= ISSUE_SEVERITY ? worst : null;
  const problems = [...RETAKE_LABELS, ...FIX_LABELS].filter((l) => input.labels.includes(l));
  const retake = problems.some((l) => RETAKE_LABELS.includes(l)) || input.grade === 'weak' || input.grade === 'hesitant';
  const standing: Standing = input.spoilers.length
    ? 'unusable'
    : issue
      ? 'repair'
      : retake
        ? 'retake'
        : input.quality.score < USABLE_QUALITY
          ? 'check'
          : problems.length || input.restarts > 0
            ? 'fix'
            : 'usable';
  return { standing, spoilers: input.spoilers, issue, problems };
}
