/** The statistics of the Praat comparison: clip-level agreement and frame-by-frame pitch agreement. */

export interface Measures {
  pitch: number | null;
  jitter: number | null;
  shimmer: number | null;
  hnr: number | null;
}

export const MEASURES = ['pitch', 'jitter', 'shimmer', 'hnr'] as const;

/** A clip's value from its lines: the duration-weighted mean over the lines where it is defined. */
export function clipValue(lines: ReadonlyArray<{ duration: number; value: number | null }>): number | null {
  let sum = 0;
  let weight = 0;
  for (const l of lines) {
    if (l.value === null || !Number.isFinite(l.value)) continue;
    sum += l.duration * l.value;
    weight += l.duration;
  }
  return weight > 0 ? sum / weight : null;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : 0.5 * (s[m - 1]! + s[m]!);
}

export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i]!;
}

export interface Agreement {
  clips: number;
  /** Clips where both sides have a pitch, and the share of them within 3% of Praat. */
  pitchClips: number;
  pitchWithin3: number;
  pitchMedianRel: number;
  pitchMaxRel: number;
  jitterClips: number;
  jitterMedianRel: number;
  jitterMaxRel: number;
  shimmerClips: number;
  shimmerMedianRel: number;
  shimmerMaxRel: number;
  hnrClips: number;
  hnrMedianAbsDb: number;
  hnrMaxAbsDb: number;
  /** Clips where one side has a value and the other none, per measure. */
  definedMismatch: number;
}

/** Agreement with Praat the prosody measures aim for (bench/prosody/README.md, "Clip level"). */
export const TARGETS = { pitchWithin3: 0.9, jitterMedianRel: 0.15, shimmerMedianRel: 0.15, hnrMedianAbsDb: 1.5 };

export function agreement(pairs: ReadonlyArray<{ mine: Measures; praat: Measures }>): Agreement {
  const rel = (key: 'pitch' | 'jitter' | 'shimmer') =>
    pairs.filter((p) => p.mine[key] !== null && p.praat[key] !== null && p.praat[key] !== 0).map((p) => Math.abs(p.mine[key]! - p.praat[key]!) / Math.abs(p.praat[key]!));
  const pitch = rel('pitch');
  const jitter = rel('jitter');
  const shimmer = rel('shimmer');
  const hnr = pairs.filter((p) => p.mine.hnr !== null && p.praat.hnr !== null).map((p) => Math.abs(p.mine.hnr! - p.praat.hnr!));
  let definedMismatch = 0;
  for (const p of pairs) for (const k of MEASURES) if ((p.mine[k] === null) !== (p.praat[k] === null)) definedMismatch++;
  return {
    clips: pairs.length,
    pitchClips: pitch.length,
    pitchWithin3: pitch.length ? pitch.filter((d) => d <= 0.03).length / pitch.length : NaN,
    pitchMedianRel: median(pitch),
    pitchMaxRel: Math.max(...pitch),
    jitterClips: jitter.length,
    jitterMedianRel: median(jitter),
    jitterMaxRel: Math.max(...jitter),
    shimmerClips: shimmer.length,
    shimmerMedianRel: median(shimmer),
    shimmerMaxRel: Math.max(...shimmer),
    hnrClips: hnr.length,
    hnrMedianAbsDb: median(hnr),
    hnrMaxAbsDb: Math.max(...hnr),
    definedMismatch,
  };
}

export function meetsTargets(a: Agreement): boolean {
  return (
    a.pitchWithin3 >= TARGETS.pitchWithin3 &&
    a.jitterMedianRel <= TARGETS.jitterMedianRel &&
    a.shimmerMedianRel <= TARGETS.shimmerMedianRel &&
    a.hnrMedianAbsDb <= TARGETS.hnrMedianAbsDb
  );
}

/** A pitch track as frame times and F0 (0 = unvoiced). */
export interface Frames {
  times: ArrayLike<number>;
  f0: ArrayLike<number>;
}

export interface TrackAgreement {
  /** Reference frames that have a frame of ours at the same time (within a millisecond). */
  frames: number;
  /** Frames where both say voiced, or both unvoiced. */
  voicingAgree: number;
  voicedBoth: number;
  /** |F0 − F0_ref| / F0_ref over frames voiced in both. */
  errors: number[];
}

/** Pairs frames by time and compares voicing and F0. */
export function compareTracks(mine: Frames, reference: Frames): TrackAgreement {
  const out: TrackAgreement = { frames: 0, voicingAgree: 0, voicedBoth: 0, errors: [] };
  let j = 0;
  for (let i = 0; i < reference.times.length; i++) {
    const t = reference.times[i]!;
    while (j + 1 < mine.times.length && Math.abs(mine.times[j + 1]! - t) <= Math.abs(mine.times[j]! - t)) j++;
    if (j >= mine.times.length || Math.abs(mine.times[j]! - t) > 0.001) continue;
    out.frames++;
    const a = mine.f0[j]! > 0;
    const b = reference.f0[i]! > 0;
    if (a === b) out.voicingAgree++;
    if (a && b) {
      out.voicedBoth++;
      out.errors.push(Math.abs(mine.f0[j]! - reference.f0[i]!) / reference.f0[i]!);
    }
  }
  return out;
}

export function poolTracks(parts: readonly TrackAgreement[]): TrackAgreement {
  return {
    frames: parts.reduce((s, p) => s + p.frames, 0),
    voicingAgree: parts.reduce((s, p) => s + p.voicingAgree, 0),
    voicedBoth: parts.reduce((s, p) => s + p.voicedBoth, 0),
    errors: parts.flatMap((p) => p.errors),
  };
}

/** Gross pitch errors: F0 more than 20% away from the reference (octave and similar slips). */
export const GROSS_ERROR = 0.2;
