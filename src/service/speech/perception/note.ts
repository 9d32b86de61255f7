import type { DeliveryLabel, Emphasis, Prosody, QualityIssue } from '../../../shared/schemas/analysis';
import type { Restart } from './restarts';

/** Issues at least this severe lead the note: the signal, not the delivery, decides the take. */
export const NOTE_ISSUE_SEVERITY = 0.5;

export interface NoteInput {
  labels: ReadonlyArray<DeliveryLabel>;
  grade: 'weak' | 'hesitant' | 'good' | 'great';
  score: number;
  prosody: Pick<Prosody, 'pace_vs_speaker' | 'energy_vs_speaker_db' | 'pitch_range_vs_speaker_st' | 'hesitations' | 'longest_pause'>;
  issues: ReadonlyArray<QualityIssue>;
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

const ADVICE: Partial<Record<DeliveryLabel, string>> = {
  hesitant: 'tighten the pauses or pick another take',
  rushed: 'consider a slower take',
  slow: 'tighten it or pick a brisker take',
  mumbled: 'check it is intelligible',
  trailing_off: 'check the ending is audible',
  flat: 'a livelier take may work better',
  quiet: 'raise its gain',
};

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** One plain sentence an editor can act on, from the most pressing finding; every figure is in the document. */
export function editorNote(n: NoteInput): string {
  const worst = [...n.issues].sort((a, b) => b.severity - a.severity)[0];
  if (worst && worst.severity >= NOTE_ISSUE_SEVERITY) return `${capitalise(humanIssue(worst.type))} (${worst.evidence}); repair it or use another take.`;
  const ordered: DeliveryLabel[] = ['mumbled', 'hesitant', 'rushed', 'trailing_off', 'flat', 'quiet', 'slow'];
  const problems = ordered.filter((l) => n.labels.includes(l));
  if (problems.length) {
    const [first, ...rest] = problems;
    const also = rest.length ? `; also ${rest.map((l) => l.replace('_', ' ')).join(' and ')}` : '';
    return `${capitalise(labelClause(first!, n))} — ${ADVICE[first!]}${also}.`;
  }
  if (n.restarts.length) return `Restarts at “${n.restarts[0]!.words}”; trim the false start.`;
  if (n.labels.includes('emphatic')) return `${capitalise(labelClause('emphatic', n))}; a lively take (delivery ${n.score.toFixed(2)}).`;
  if (n.grade === 'great') return `Strong, lively take (delivery ${n.score.toFixed(2)}); a good select.`;
  if (n.grade === 'weak') return `Weak delivery (${n.score.toFixed(2)}) for this speaker; consider another take.`;
  return `Even delivery (${n.score.toFixed(2)}); usable as it is.`;
}
