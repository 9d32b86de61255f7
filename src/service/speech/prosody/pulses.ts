import { nearestSample, sampleAtOrAfter, sampleAtOrBefore, sampleTime } from './frames';
import type { PitchTrack } from './pitch';

/**
 * Glottal pulse times by waveform cross-correlation, as Praat's "To PointProcess (periodic, cc)" (from a
 * Sound and its Pitch): in each voiced stretch of the pitch track, start at the largest absolute sample
 * within half a period of the stretch's middle, then step one period at a time to either side, placing
 * each next pulse where a one-period window best matches (correlates with) the window at the last pulse,
 * searched between 0.8 and 1.25 periods away. A match must correlate above 0.3 and not be near-silent to
 * be kept; beyond the stretch's ends it must correlate above 0.7. Returns sorted times in seconds from the
 * start of `pcm` (sample k at (k + 0.5) / sampleRate).
 */
export function periodicPulses(pcm: Float32Array, sampleRate: number, track: PitchTrack): Float64Array {
  const duration = pcm.length / sampleRate;
  const f0At = (t: number) => pitchAt(track, t, duration);
  let globalPeak = 0;
  for (let i = 0; i < pcm.length; i++) globalPeak = Math.max(globalPeak, Math.abs(pcm[i]!));
  const points: number[] = [];
  const add = (t: number) => insertSorted(points, t);

  let after = 0;
  let addedRight = -1e308;
  for (;;) {
    const stretch = voicedStretchAfter(track, after, duration);
    if (!stretch) break;
    const { left: tLeft, right: tRight } = stretch;
    const tMiddle = 0.5 * (tLeft + tRight);
    const f0Middle = f0At(tMiddle);
    if (!(f0Middle > 0)) break; // cannot happen: the middle of a voiced stretch is voiced
    let t = findExtremum(pcm, sampleRate, tMiddle - 0.5 / f0Middle, tMiddle + 0.5 / f0Middle);
    add(t);
    const first = t;
    // Backwards from the first pulse.
    for (;;) {
      const f0 = f0At(t);
      if (!(f0 > 0)) break;
      const m = bestMatch(pcm, sampleRate, t, 1 / f0, t - 1.25 / f0, t - 0.8 / f0);
      const next = m.correlation === -1 ? t - 1 / f0 : m.time;
      if (!(next < t)) break; // never stall (a degenerate match could not move)
      t = next;
      if (t < tLeft) {
        if (m.correlation > 0.7 && m.peak > 0.023333 * globalPeak && t - addedRight > 0.8 / f0) add(t);
        break;
      }
      if (m.correlation > 0.3 && (m.peak === 0 || m.peak > 0.01 * globalPeak) && t - addedRight > 0.8 / f0) add(t);
    }
    // Forwards from the first pulse.
    t = first;
    for (;;) {
      const f0 = f0At(t);
      if (!(f0 > 0)) break;
      const m = bestMatch(pcm, sampleRate, t, 1 / f0, t + 0.8 / f0, t + 1.25 / f0);
      const next = m.correlation === -1 ? t + 1 / f0 : m.time;
      if (!(next > t)) break;
      t = next;
      if (t > tRight) {
        if (m.correlation > 0.7 && m.peak > 0.023333 * globalPeak) {
          add(t);
          addedRight = t;
        }
        break;
      }
      if (m.correlation > 0.3 && (m.peak === 0 || m.peak > 0.01 * globalPeak)) {
        add(t);
        addedRight = t;
      }
    }
    after = tRight;
  }
  return Float64Array.from(points);
}

/** Adds `t` in order, unless a point at exactly that time is already there. */
function insertSorted(points: number[], t: number): void {
  if (points.length === 0 || t > points[points.length - 1]!) {
    points.push(t);
    return;
  }
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (points[lo] !== t) points.splice(lo, 0, t);
}

/**
 * F0 at time t, linearly interpolated between the two nearest frames; undefined (NaN) outside the
 * signal or when the nearest frame is unvoiced; the nearest frame's value when the other is unvoiced.
 */
export function pitchAt(track: PitchTrack, t: number, duration: number): number {
  if (t < 0 || t > duration) return NaN;
  const n = track.f0.length;
  const position = (t - track.start) / track.timeStep;
  const leftIndex = Math.floor(position);
  let phase = position - leftIndex;
  let near: number;
  let far: number;
  if (phase < 0.5) {
    near = leftIndex;
    far = leftIndex + 1;
  } else {
    far = leftIndex;
    near = leftIndex + 1;
    phase = 1 - phase;
  }
  if (near < 0 || near >= n) return NaN;
  const nearValue = track.f0[near]!;
  if (!(nearValue > 0)) return NaN;
  if (far < 0 || far >= n) return nearValue;
  const farValue = track.f0[far]!;
  if (!(farValue > 0)) return nearValue;
  return nearValue + phase * (farValue - nearValue);
}

/** The next run of voiced frames starting at or after time `after`, as a time span (frame edges). */
function voicedStretchAfter(track: PitchTrack, after: number, duration: number): { left: number; right: number } | null {
  const n = track.f0.length;
  const dt = track.timeStep;
  let i = Math.max(0, Math.ceil((after - track.start) / dt));
  if (i >= n) return null;
  while (i < n && !(track.f0[i]! > 0)) i++;
  if (i >= n) return null;
  let j = i;
  while (j + 1 < n && track.f0[j + 1]! > 0) j++;
  let left = track.start + i * dt - 0.5 * dt;
  let right = track.start + j * dt + 0.5 * dt;
  if (left >= duration - 0.5 * dt) return null;
  left = Math.max(0, left);
  right = Math.min(duration, right);
  if (right <= after) return null;
  return { left, right };
}

/**
 * Time of the sample with the largest absolute value between tMin and tMax, refined by a parabola through
 * it and its neighbours (not at the range's ends).
 */
export function findExtremum(pcm: Float32Array, fs: number, tMin: number, tMax: number): number {
  const i0 = Math.max(0, sampleAtOrBefore(tMin, fs));
  const i1 = Math.min(pcm.length - 1, sampleAtOrAfter(tMax, fs));
  const count = i1 - i0 + 1;
  if (count <= 0) return 0.5 * (tMin + tMax);
  if (count === 1) return sampleTime(i0, fs);
  if (count === 2) {
    const a = Math.abs(pcm[i0]!);
    const b = Math.abs(pcm[i1]!);
    return a > b ? sampleTime(i0, fs) : a < b ? sampleTime(i1, fs) : sampleTime(i0 + 0.5, fs);
  }
  let iMin = i0;
  let iMax = i0;
  for (let i = i0 + 1; i <= i1; i++) {
    if (pcm[i]! < pcm[iMin]!) iMin = i;
    if (pcm[i]! > pcm[iMax]!) iMax = i;
  }
  if (pcm[iMin] === pcm[iMax]) return sampleTime(0.5 * (i0 + i1), fs);
  const i = Math.abs(pcm[iMin]!) > Math.abs(pcm[iMax]!) ? iMin : iMax;
  if (i === i0 || i === i1) return sampleTime(i, fs);
  const mid = pcm[i]!;
  const left = pcm[i - 1]!;
  const right = pcm[i + 1]!;
  return sampleTime(i + (0.5 * (right - left)) / (2 * mid - left - right), fs);
}

/**
 * Where, between tMin2 and tMax2, a window of `windowLength` seconds best correlates with the window
 * centred at t1: the highest local maximum of the normalised correlation over whole-sample shifts, refined
 * by a parabola. `peak` is the largest absolute sample of the compared window; correlation −1 = no maximum.
 */
function bestMatch(
  pcm: Float32Array,
  fs: number,
  t1: number,
  windowLength: number,
  tMin2: number,
  tMax2: number,
): { time: number; correlation: number; peak: number } {
  const n = pcm.length;
  const half = 0.5 * windowLength;
  const left1 = nearestSample(t1 - half, fs);
  const right1 = nearestSample(t1 + half, fs);
  const left2Min = sampleAtOrBefore(tMin2 - half, fs);
  const left2Max = sampleAtOrAfter(tMax2 - half, fs);
  let best = -1;
  let rBefore = NaN;
  let rAfter = NaN;
  let bestShift = NaN;
  let r1 = 0;
  let r2 = 0;
  let r3 = 0;
  // Sample pairs outside the signal are left out of every sum.
  const inside = (left2: number) => [Math.max(left1, -left2 + left1, 0), Math.min(right1, n - 1, n - 1 - left2 + left1)] as const;
  for (let left2 = left2Min; left2 <= left2Max; left2++) {
    const [from, to] = inside(left2);
    const shift = left2 - left1;
    let norm1 = 0;
    let norm2 = 0;
    let product = 0;
    for (let i1 = from; i1 <= to; i1++) {
      const a = pcm[i1]!;
      const b = pcm[i1 + shift]!;
      norm1 += a * a;
      norm2 += b * b;
      product += a * b;
    }
    r1 = r2;
    r2 = r3;
    r3 = product !== 0 ? product / Math.sqrt(norm1 * norm2) : 0;
    // The test looks at the previous shift, whose neighbours are now both known.
    if (r2 > best && r2 >= r1 && r2 >= r3) {
      rBefore = r1;
      best = r2;
      rAfter = r3;
      bestShift = left2 - 1;
    }
  }
  // The loudness check reads the window one past the best shift (where the maximum was recognised).
  let peak = 0;
  if (best !== -1) {
    const [from, to] = inside(bestShift + 1);
    const shift = bestShift + 1 - left1;
    for (let i1 = from; i1 <= to; i1++) peak = Math.max(peak, Math.abs(pcm[i1 + shift]!));
  }
  if (best === -1) return { time: NaN, correlation: -1, peak };
  let correlation = best;
  let shift = bestShift;
  const d2r = 2 * best - rBefore - rAfter;
  if (d2r !== 0) {
    const dr = 0.5 * (rAfter - rBefore);
    correlation += (0.5 * dr * dr) / d2r;
    shift += dr / d2r;
  }
  return { time: t1 + (shift - left1) / fs, correlation, peak };
}
