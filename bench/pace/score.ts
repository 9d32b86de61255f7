/**
 * Scores of bench/pace: measured tempo change against the true one, absolute error against the references'
 * syllables, and how often a sped-up or slowed clip reads `rushed` or `slow` against its source's clips at
 * their own tempo (the source stands for the speaker). Pure, so it is tested beside.
 */
import { RUSHED_PACE, SLOW_PACE } from '../../src/service/speech/perception/labels';
import { calibratedSyllables } from '../../src/service/speech/delivery/pace';

export type Method = 'dictionary' | 'nuclei' | 'shipped' | 'praat';

export interface ClipMeasure {
  file: string;
  source: string;
  half: string;
  /** How many times as fast as the original (0.8 = slower). */
  tempo: number;
  duration: number;
  /** Dictionary syllables of the reference text. */
  referenceSyllables: number;
  /** Dictionary syllables of the recognized words; null without recognition. */
  dictionarySyllables: number | null;
  /** Articulation time as the analysis measures it; null without recognition (the clip's duration is used). */
  articulationSeconds: number | null;
  /** Nuclei counted with each setting tried (index 0: the shipped one). */
  nuclei: number[];
  /** Syllables counted by de Jong & Wempe's own Praat script (--praat-script); absent when not run. */
  praat?: number;
}

const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const seconds = (m: ClipMeasure) => m.articulationSeconds ?? m.duration;

/** Syllables by each method; `shipped` scales the clip's nuclei by its source's dictionary syllables per nucleus at 1×. */
export function syllablesBy(measures: readonly ClipMeasure[], method: Method, g: number): Map<ClipMeasure, number | null> {
  const out = new Map<ClipMeasure, number | null>();
  const sources = new Set(measures.map((m) => m.source));
  for (const source of sources) {
    const own = measures.filter((m) => m.source === source);
    const scaled =
      method === 'shipped'
        ? calibratedSyllables(
            own.map((m) => ({ dictionary: m.dictionarySyllables ?? 0, nuclei: m.nuclei[g]!, usual: m.tempo === 1 })),
          )
        : null;
    own.forEach((m, i) => {
      if (method === 'dictionary') out.set(m, m.dictionarySyllables);
      else if (method === 'praat') out.set(m, m.praat ?? null);
      else if (method === 'nuclei') out.set(m, m.nuclei[g]!);
      else out.set(m, scaled![i]!);
    });
  }
  return out;
}

export interface TempoScore {
  tempo: number;
  /** Median of measured ratio over true ratio. */
  medianRatio: number;
  /** Share of clips whose measured ratio is within 10 % of the true one. */
  within10: number;
  clips: number;
}

export function tempoScores(measures: readonly ClipMeasure[], method: Method, g: number): TempoScore[] {
  const syll = syllablesBy(measures, method, g);
  const rate = (m: ClipMeasure) => {
    const s = syll.get(m);
    return s === null || s === undefined || s <= 0 ? null : s / seconds(m);
  };
  const base = new Map(measures.filter((m) => m.tempo === 1).map((m) => [m.file, m]));
  const tempos = [...new Set(measures.map((m) => m.tempo))].filter((t) => t !== 1).sort((a, b) => a - b);
  return tempos.map((tempo) => {
    const ratios: number[] = [];
    for (const m of measures.filter((x) => x.tempo === tempo)) {
      const b = base.get(m.file);
      const r1 = b ? rate(b) : null;
      const r = rate(m);
      if (r1 && r) ratios.push(r / r1 / tempo);
    }
    return { tempo, medianRatio: median(ratios), within10: ratios.filter((x) => Math.abs(x - 1) <= 0.1).length / Math.max(1, ratios.length), clips: ratios.length };
  });
}

/** Relative error of the rate against the reference's syllables over the same time: median |error| and median error. */
export function absoluteError(measures: readonly ClipMeasure[], method: Method, g: number, tempo?: number): { medianAbs: number; medianSigned: number; clips: number } {
  const syll = syllablesBy(measures, method, g);
  const errors: number[] = [];
  for (const m of measures) {
    if (tempo !== undefined && m.tempo !== tempo) continue;
    const s = syll.get(m);
    if (s === null || s === undefined || m.referenceSyllables <= 0) continue;
    errors.push(s / m.referenceSyllables - 1);
  }
  return { medianAbs: median(errors.map(Math.abs)), medianSigned: median(errors), clips: errors.length };
}

/** Share of the clips at `tempo` whose pace against their source's clips at 1× reads rushed (≥ RUSHED_PACE) or slow (≤ SLOW_PACE). */
export function labelShares(measures: readonly ClipMeasure[], method: Method, g: number, tempo: number): { rushed: number; slow: number } {
  const syll = syllablesBy(measures, method, g);
  let rushed = 0;
  let slow = 0;
  let n = 0;
  for (const source of new Set(measures.map((m) => m.source))) {
    const usual = measures.filter((m) => m.source === source && m.tempo === 1);
    const total = usual.reduce((s, m) => s + (syll.get(m) ?? 0), 0);
    const time = usual.reduce((s, m) => s + (syll.get(m) ? seconds(m) : 0), 0);
    if (!(total > 0 && time > 0)) continue;
    for (const m of measures.filter((x) => x.source === source && x.tempo === tempo)) {
      const s = syll.get(m);
      if (!s) continue;
      const pace = s / seconds(m) / (total / time);
      n++;
      if (pace >= RUSHED_PACE) rushed++;
      if (pace <= SLOW_PACE) slow++;
    }
  }
  return { rushed: rushed / Math.max(1, n), slow: slow / Math.max(1, n) };
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)} %` : '–');
const signedPct = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} %` : '–');
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(3)}` : '–');

/** The bench's tables (markdown) for one half. */
export function summarise(measures: readonly ClipMeasure[], methods: readonly Method[], g: number): string {
  const usable = methods.filter((method) =>
    method === 'nuclei' ? true : method === 'praat' ? measures.some((m) => m.praat !== undefined) : measures.some((m) => m.dictionarySyllables !== null),
  );
  const lines: string[] = [];
  lines.push(`| true tempo | ${usable.map((m) => `${m}: measured ÷ true (median) | ${m}: within 10 %`).join(' | ')} |`);
  lines.push(`|---|${usable.map(() => '---|---').join('|')}|`);
  const scores = usable.map((m) => tempoScores(measures, m, g));
  for (const [i, t] of scores[0]!.entries()) {
    lines.push(`| ${t.tempo}× (${t.clips} clips) | ${scores.map((s) => `${ratio(s[i]!.medianRatio)} | ${pct(s[i]!.within10)}`).join(' | ')} |`);
  }
  lines.push('');
  lines.push(`| against the reference's syllables | ${usable.join(' | ')} |`);
  lines.push(`|---|${usable.map(() => '---').join('|')}|`);
  const abs = (tempo?: number) => usable.map((m) => absoluteError(measures, m, g, tempo));
  const at1 = abs(1);
  const all = abs();
  lines.push(`| median \\|error\\|, clips at 1× | ${at1.map((e) => pct(e.medianAbs)).join(' | ')} |`);
  lines.push(`| median error, clips at 1× | ${at1.map((e) => signedPct(e.medianSigned)).join(' | ')} |`);
  lines.push(`| median \\|error\\|, all tempos | ${all.map((e) => pct(e.medianAbs)).join(' | ')} |`);
  lines.push(`| median error, all tempos | ${all.map((e) => signedPct(e.medianSigned)).join(' | ')} |`);
  lines.push('');
  lines.push(`| pace_vs_speaker label | ${usable.join(' | ')} |`);
  lines.push(`|---|${usable.map(() => '---').join('|')}|`);
  const shares = (tempo: number) => usable.map((m) => labelShares(measures, m, g, tempo));
  lines.push(`| 1× read rushed or slow | ${shares(1).map((s) => pct(s.rushed + s.slow)).join(' | ')} |`);
  lines.push(`| 0.8× read slow | ${shares(0.8).map((s) => pct(s.slow)).join(' | ')} |`);
  for (const t of [1.2, 1.3, 1.5]) lines.push(`| ${t}× read rushed | ${shares(t).map((s) => pct(s.rushed)).join(' | ')} |`);
  return lines.join('\n');
}
