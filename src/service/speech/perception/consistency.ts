import type { AnalysisSegment, Moment } from '../../../shared/schemas/analysis';
import { takeQuality } from './grade';
import { NOTE_ADVISES_AGAINST, NOTE_RECOMMENDS, NOTE_UNUSABLE } from './note';
import { ISSUE_SEVERITY, RETAKE_LABELS, USABLE_QUALITY } from './verdict';

/**
 * What a line's verdicts must agree on (README "Verdict"): its note, its quality issues, its delivery and the
 * moments that cover it. verdict.ts decides once and the others read it, so these rules hold by
 * construction; they are stated here, apart from the code that builds the values, so a test can walk real
 * analyses and check every line against them.
 */
export interface ConsistencyRule {
  id: string;
  /** The rule in words. */
  says: string;
  /** Null when the line keeps the rule, else what breaks it. */
  check(line: AnalysisSegment, covering: ReadonlyArray<Moment>): string | null;
}

const recommends = (note: string) => NOTE_RECOMMENDS.some((p) => note.includes(p));
const advisesAgainst = (note: string) => NOTE_ADVISES_AGAINST.find((p) => note.includes(p));
const worstIssue = (line: AnalysisSegment) => [...line.quality.issues].sort((a, b) => b.severity - a.severity)[0];
const humanIssue = (type: string) => type.replace(/_/g, ' ');
const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x) => b.includes(x));

export const CONSISTENCY_RULES: ReadonlyArray<ConsistencyRule> = [
  {
    id: 'unusable-note',
    says: 'A line covered by an unusable moment has a note that begins "Unusable:" with the same reasons, and never recommends the take',
    check: (line, covering) => {
      const m = covering.find((x) => x.type === 'unusable');
      if (!m || !line.perception) return null;
      const note = line.perception.note;
      if (!note.startsWith(NOTE_UNUSABLE)) return `unusable moment "${m.reason}" but note "${note}"`;
      if (!note.toLowerCase().includes(m.reason.toLowerCase())) return `note "${note}" does not give the moment's reasons "${m.reason}"`;
      return recommends(note) ? `unusable line recommended: "${note}"` : null;
    },
  },
  {
    id: 'note-unusable-moment',
    says: 'A note that says "Unusable:" has an unusable moment over its line',
    check: (line, covering) =>
      line.perception?.note.startsWith(NOTE_UNUSABLE) && !covering.some((x) => x.type === 'unusable') ? `note "${line.perception.note}" without an unusable moment` : null,
  },
  {
    id: 'select-signal',
    says: `A select's line has no unusable moment, no quality issue of severity ≥ ${ISSUE_SEVERITY} and a quality score ≥ ${USABLE_QUALITY}`,
    check: (line, covering) => {
      if (!covering.some((x) => x.type === 'select')) return null;
      if (covering.some((x) => x.type === 'unusable')) return 'select and unusable';
      const worst = worstIssue(line);
      if (worst && worst.severity >= ISSUE_SEVERITY) return `select with ${worst.type} ${worst.severity}`;
      return line.quality.score < USABLE_QUALITY ? `select with quality score ${line.quality.score}` : null;
    },
  },
  {
    id: 'select-delivery',
    says: `A select's line has good or great delivery, none of the labels ${RETAKE_LABELS.join(', ')}, and a note that advises no other take`,
    check: (line, covering) => {
      if (!covering.some((x) => x.type === 'select')) return null;
      if (!line.delivery || !line.perception) return 'select on a line not listened to';
      if (line.delivery.label !== 'good' && line.delivery.label !== 'great') return `select with ${line.delivery.label} delivery`;
      const label = RETAKE_LABELS.find((l) => line.perception!.delivery.includes(l));
      if (label) return `select labelled ${label}`;
      const against = advisesAgainst(line.perception.note);
      return against ? `select whose note says "${against}"` : null;
    },
  },
  {
    id: 'recommendation',
    says: `A note that recommends the take ("${NOTE_RECOMMENDS.join('", "')}") is on a line with no unusable moment, no issue of severity ≥ ${ISSUE_SEVERITY}, quality ≥ ${USABLE_QUALITY}, good or great delivery and no delivery problem`,
    check: (line, covering) => {
      const note = line.perception?.note ?? '';
      if (!recommends(note)) return null;
      if (covering.some((x) => x.type === 'unusable')) return `"${note}" on an unusable line`;
      const worst = worstIssue(line);
      if (worst && worst.severity >= ISSUE_SEVERITY) return `"${note}" with ${worst.type} ${worst.severity}`;
      if (line.quality.score < USABLE_QUALITY) return `"${note}" with quality score ${line.quality.score}`;
      if (line.delivery && line.delivery.label !== 'good' && line.delivery.label !== 'great') return `"${note}" with ${line.delivery.label} delivery`;
      const problem = line.perception!.delivery.find((l) => l !== 'emphatic');
      return problem ? `"${note}" labelled ${problem}` : null;
    },
  },
  {
    id: 'severe-issue-named',
    says: `A quality issue of severity ≥ ${ISSUE_SEVERITY} leads the note (or the line is unusable and its note says why)`,
    check: (line) => {
      const worst = worstIssue(line);
      const note = line.perception?.note;
      if (!worst || worst.severity < ISSUE_SEVERITY || note === undefined) return null;
      if (note.startsWith(NOTE_UNUSABLE)) return null;
      return note.toLowerCase().startsWith(humanIssue(worst.type)) ? null : `${worst.type} ${worst.severity} not named first in "${note}"`;
    },
  },
  {
    id: 'issues-listed',
    says: "The perception's audio issues are the types of the line's quality issues",
    check: (line) => {
      if (!line.perception) return null;
      const types = [...new Set(line.quality.issues.map((i) => i.type))];
      return sameSet(line.perception.audio_issues, types) ? null : `audio_issues ${line.perception.audio_issues.join(',')} vs issues ${types.join(',')}`;
    },
  },
  {
    id: 'delivery-labels',
    says: "The delivery's estimated flags are the perception's delivery labels, and the grade is hesitant exactly when the line is labelled hesitant",
    check: (line) => {
      if (!line.perception || !line.delivery) return null;
      const flags = line.delivery.flags.filter((f) => f.source === 'estimate').map((f) => f.type);
      if (!sameSet(flags, line.perception.delivery)) return `flags ${flags.join(',')} vs labels ${line.perception.delivery.join(',')}`;
      return (line.delivery.label === 'hesitant') !== line.perception.delivery.includes('hesitant') ? `grade ${line.delivery.label} with labels ${line.perception.delivery.join(',')}` : null;
    },
  },
  {
    id: 'take-quality',
    says: 'The take quality is √(delivery score × quality score)',
    check: (line) => {
      if (!line.perception || !line.delivery) return null;
      const expected = takeQuality(line.delivery.score, line.quality.score);
      return line.perception.take_quality === expected ? null : `take_quality ${line.perception.take_quality}, expected ${expected}`;
    },
  },
];

export interface Contradiction {
  rule: string;
  line: number;
  detail: string;
}

/** Every rule broken by any line of an analysis (empty: the verdicts agree). */
export function contradictions(segments: ReadonlyArray<AnalysisSegment>, moments: ReadonlyArray<Moment>): Contradiction[] {
  const out: Contradiction[] = [];
  for (const line of segments) {
    const covering = moments.filter((m) => m.segment_ids.includes(line.id));
    for (const rule of CONSISTENCY_RULES) {
      const detail = rule.check(line, covering);
      if (detail) out.push({ rule: rule.id, line: line.id, detail });
    }
  }
  return out;
}
