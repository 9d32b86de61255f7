/**
 * Scores of bench/pace/in-context.ts: how the changed sentence of each reading and its untouched sentences
 * read, by each way of computing pace_vs_speaker. Pure, so it is tested beside.
 */
import { RUSHED_PACE, SLOW_PACE } from '../../src/service/speech/perception/labels';
import { largerChange, paceAgainstSpeaker, paceRatios, type PaceCounts } from '../../src/service/speech/delivery/pace-vs-speaker';

export interface ContextLine extends PaceCounts {
  /** The sentence the line mostly lies in, and its tempo (1 = untouched). */
  sentence: string;
  tempo: number;
}

/** One reading: one sentence changed, the others untouched. */
export interface Reading {
  reader: string;
  half: string;
  target: string;
  tempo: number;
  lines: ContextLine[];
}

export type ContextMethod = 'before' | 'dictionary' | 'nuclei' | 'larger' | 'mean' | 'published';
export const CONTEXT_METHODS: ContextMethod[] = ['before', 'dictionary', 'nuclei', 'larger', 'mean', 'published'];

/**
 * pace_vs_speaker of each line by a method: `before` the dictionary's rate over the speaker's ratio of sums
 * over every line (the line included); `dictionary` and `nuclei` one count against the median of the
 * speaker's other lines; `larger` both, the one that moved further where they agree (their geometric mean
 * where not); `mean` both, their geometric mean; `published` as the analysis reads them (delivery/pace-vs-speaker.ts).
 */
export function paceBy(lines: ReadonlyArray<ContextLine>, method: ContextMethod): Array<number | null> {
  if (method === 'published') return paceAgainstSpeaker(lines);
  if (method === 'dictionary') return paceRatios(lines, (l) => l.syllables);
  if (method === 'nuclei') return paceRatios(lines, (l) => l.nuclei ?? 0);
  if (method === 'larger' || method === 'mean') {
    const d = paceRatios(lines, (l) => l.syllables);
    const n = paceRatios(lines, (l) => l.nuclei ?? 0);
    return d.map((x, i) => (x === null || n[i] === null ? x : method === 'larger' ? largerChange(x, n[i]!) : Math.sqrt(x * n[i]!)));
  }
  const syllables = lines.reduce((s, l) => s + l.syllables, 0);
  const seconds = lines.reduce((s, l) => s + l.articulation_seconds, 0);
  return lines.map((l) => (l.articulation_seconds >= 0.3 && l.syllables > 0 && syllables > 0 ? l.syllables / l.articulation_seconds / (syllables / seconds) : null));
}

const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * A sentence's reading: its lines' pace weighted by their articulation time (a sentence the recognizer
 * split reads as the whole it is), and its label: rushed/slow when that pace crosses the threshold.
 */
function sentencePace(lines: ReadonlyArray<ContextLine>, pace: Array<number | null>, sentence: string): number | null {
  let sum = 0;
  let weight = 0;
  lines.forEach((l, i) => {
    if (l.sentence !== sentence || pace[i] === null) return;
    sum += Math.log(pace[i]!) * l.articulation_seconds;
    weight += l.articulation_seconds;
  });
  return weight > 0 ? Math.exp(sum / weight) : null;
}

export interface ContextScore {
  tempo: number;
  readings: number;
  /** Median pace_vs_speaker of the changed sentences. */
  medianPace: number;
  /** Share of changed sentences reading ≥ 1.15 (sped) or ≤ 0.87 (slowed). */
  beyond15: number;
  /** Share of the changed sentences' lines labelled as the change should be (rushed for faster, slow for slower). */
  labelled: number;
  /** Share of untouched lines labelled rushed or slow. */
  falseLabels: number;
  untouchedLines: number;
}

export function contextScores(readings: ReadonlyArray<Reading>, method: ContextMethod): ContextScore[] {
  const tempos = [...new Set(readings.map((r) => r.tempo))].sort((a, b) => a - b);
  return tempos.map((tempo) => {
    const own = readings.filter((r) => r.tempo === tempo);
    const paces: number[] = [];
    let labelled = 0;
    let changedLines = 0;
    let falseLabels = 0;
    let untouched = 0;
    for (const r of own) {
      const pace = paceBy(r.lines, method);
      const p = sentencePace(r.lines, pace, r.target);
      if (p !== null) paces.push(p);
      r.lines.forEach((l, i) => {
        const x = pace[i];
        if (x === null || x === undefined) return;
        if (l.sentence === r.target) {
          changedLines++;
          if (tempo > 1 ? x >= RUSHED_PACE : x <= SLOW_PACE) labelled++;
        } else {
          untouched++;
          if (x >= RUSHED_PACE || x <= SLOW_PACE) falseLabels++;
        }
      });
    }
    const beyond = tempo > 1 ? paces.filter((x) => x >= 1.15).length : paces.filter((x) => x <= 1 / 1.15).length;
    return {
      tempo,
      readings: own.length,
      medianPace: median(paces),
      beyond15: beyond / Math.max(1, paces.length),
      labelled: labelled / Math.max(1, changedLines),
      falseLabels: falseLabels / Math.max(1, untouched),
      untouchedLines: untouched,
    };
  });
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '–');

/** The bench's table (markdown): each method and tempo, the halves side by side (tuning half first). */
export function summariseContext(readings: ReadonlyArray<Reading>, halves: readonly string[] = ['tune', 'test']): string {
  const cells = (s: ContextScore | undefined) =>
    s ? `${s.readings} | ${s.medianPace.toFixed(3)} | ${pct(s.beyond15)} | ${pct(s.labelled)} | ${pct(s.falseLabels)} of ${s.untouchedLines}` : '– | – | – | – | –';
  const head = halves.map((h) => `${h}: readings | ${h}: median pace_vs_speaker | ${h}: ≥ 1.15× (≤ 0.87× slowed) | ${h}: its lines labelled | ${h}: untouched lines labelled rushed/slow`);
  const out = [`| method | changed sentence | ${head.join(' | ')} |`, `|---|---|${halves.map(() => '---|---|---|---|---').join('|')}|`];
  const tempos = [...new Set(readings.map((r) => r.tempo))].sort((a, b) => b - a);
  for (const method of CONTEXT_METHODS) {
    const byHalf = halves.map((h) => contextScores(readings.filter((r) => r.half === h), method));
    for (const tempo of tempos) out.push(`| ${method} | ${tempo}× | ${byHalf.map((scores) => cells(scores.find((x) => x.tempo === tempo))).join(' | ')} |`);
  }
  return out.join('\n');
}
