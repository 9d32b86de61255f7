import type { DeliveryLabel, Emphasis, Prosody } from '../../../shared/schemas/analysis';
import type { Restart } from './restarts';
import { ISSUE_SEVERITY, type Verdict } from './verdict';

/** Issues at least this severe lead the note: the signal, not the delivery, decides the take (verdict.ts). */
export const NOTE_ISSUE_SEVERITY = ISSUE_SEVERITY;

/** How the note of an unusable line begins. */
export const NOTE_UNUSABLE = 'Unusable: ';
/** Phrases only a note of a line usable as it is says. */
export const NOTE_RECOMMENDS: ReadonlyArray<string> = ['usable as it is', 'a good select', 'a lively take'];

export interface NoteInput {
  /** The line's verdict (verdict.ts): the note says what it decided, never decides again. */
  verdict: Verdict;
  labels: ReadonlyArray<DeliveryLabel>;
  grade: 'weak' | 'hesitant' | 'good' | 'great';
  score: number;
  quality_score: number;
  prosody: Pick<Prosody, 'pace_vs_speaker' | 'energy_vs_speaker_db' | 'pitch_range_vs_speaker_st' | 'hesitations' | 'longest_pause'>;
  emphasis: ReadonlyArray<Emphasis>;
  restarts: ReadonlyArray<Restart>;
  /** Level of the line's last words against the rest, dB. */
  ending_drop_db: number | null;
}

const pct = (ratio: number) => `${Math.round(Math.abs(ratio - 1) * 100)}%`;
const db = (x: number | null) => `${Math.round(Math.abs(x ?? 0))} dB`;
const st = (x: number | null) => `${Math.abs(x ?? 0).toFixed(1)} st`;
const humanIssue = (type: string) => type.replace(/_/g, ' ');

/** What each label means for the editor, with the value behind it. */
function labelClause(label: DeliveryLabel, n: NoteInput): string {
  const p = n.prosody;
  switch (label) {
    case 'hesitant':
      return `hesitant: ${p.hesitations} hesitations, longest pause ${p.longest_pause.toFixed(1)} s`;
    case 'rushed':
      return `rushed: ${pct(p.pace_vs_speaker ?? 1)} faster than this speaker's usual pace`;
    case 'slow':
      return `slow: ${pct(p.pace_vs_speaker ?? 1)} slower than this speaker's usual pace`;
    case 'mumbled':
      return `mumbled: ${db(p.energy_vs_speaker_db)} under the speaker's usual level with a ${st(p.pitch_range_vs_speaker_st)} narrower pitch range`;
    case 'trailing_off':
      return `trails off: the last words are ${db(n.ending_drop_db)} quieter than the rest`;
    case 'flat':
      return `flat: pitch range ${st(p.pitch_range_vs_speaker_st)} narrower than this speaker's usual`;
    case 'quiet':
      return `quiet: ${db(p.energy_vs_speaker_db)} under the speaker's usual level`;
    case 'emphatic':
      return `emphatic on ${n.emphasis.map((e) => `“${e.word}”`).join(', ') || 'some words'}`;
  }
}

export const ADVICE: Readonly<Partial<Record<DeliveryLabel, string>>> = {
  hesitant: 'tighten the pauses or pick another take',
  rushed: 'consider a slower take',
  slow: 'tighten it or pick a brisker take',
  mumbled: 'check it is intelligible',
  trailing_off: 'check the ending is audible',
  flat: 'a livelier take may work better',
  quiet: 'raise its gain',
};
export const ADVICE_REPAIR = 'repair it or use another take';
export const ADVICE_UNUSABLE = 'use another take';
export const ADVICE_WEAK = 'consider another take';
export const ADVICE_CHECK = 'listen to it before using it';
/** Advice that turns the editor away from the take as it is: a `select` note never carries it. */
export const NOTE_ADVISES_AGAINST: ReadonlyArray<string> = [
  ADVICE_UNUSABLE,
  ADVICE_REPAIR,
  ADVICE_WEAK,
  ADVICE_CHECK,
  ...(['mumbled', 'hesitant', 'rushed', 'trailing_off', 'flat'] as const).map((l) => ADVICE[l]!),
];

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const also = (labels: ReadonlyArray<DeliveryLabel>) => (labels.length ? `; also ${labels.map((l) => l.replace('_', ' ')).join(' and ')}` : '');

/** One plain sentence an editor can act on, saying what the line's verdict decided; every figure is in the document. */
export function editorNote(n: NoteInput): string {
  const v = n.verdict;
  switch (v.standing) {
    case 'unusable':
      return `${NOTE_UNUSABLE}${v.spoilers.map((x) => x.text).join('; ')}; ${ADVICE_UNUSABLE}.`;
    case 'repair':
      return `${capitalise(humanIssue(v.issue!.type))} (${v.issue!.evidence}); ${ADVICE_REPAIR}.`;
    case 'retake': {
      const [first, ...rest] = v.problems;
      if (first && first !== 'quiet' && first !== 'slow') return `${capitalise(labelClause(first, n))} — ${ADVICE[first]}${also(rest)}.`;
      return `Weak delivery (${n.score.toFixed(2)}) for this speaker; ${ADVICE_WEAK}${also(v.problems)}.`;
    }
    case 'check':
      return `Poor signal (quality score ${n.quality_score.toFixed(2)}); ${ADVICE_CHECK}${also(v.problems)}.`;
    case 'fix': {
      const [first, ...rest] = v.problems;
      const restart = n.restarts[0];
      if (first) return `${capitalise(labelClause(first, n))} — ${ADVICE[first]}${also(rest)}${restart ? `; trim the false start at “${restart.words}”` : ''}.`;
      return `Restarts at “${restart!.words}”; trim the false start.`;
    }
    case 'usable':
      if (n.labels.includes('emphatic')) return `${capitalise(labelClause('emphatic', n))}; a lively take (delivery ${n.score.toFixed(2)}).`;
      if (n.grade === 'great') return `Strong, lively take (delivery ${n.score.toFixed(2)}); a good select.`;
      return `Even delivery (${n.score.toFixed(2)}); usable as it is.`;
  }
}
