import { quantile } from '../../dsp/stats';
import { frameLayout } from '../prosody/frames';
import type { PitchFrames } from './pauses';

/**
 * Syllable nuclei read from the signal, the method of de Jong & Wempe (2009, "Praat script to detect
 * syllable nuclei and measure speech rate automatically", Behavior Research Methods 41(2)), written anew:
 * a syllable's nucleus is its vowel, the loudest voiced stretch of it, so nuclei are the peaks of the
 * intensity contour that (1) stand above a silence threshold set from the line's own loudest frames,
 * (2) are separated from their neighbours by a dip of at least `minDipDb`, and (3) fall on voiced frames.
 * Nothing here reads the recognizer's words, so the count follows the speech even where the recognizer
 * drops or merges words. Known limits (the authors'): unstressed syllables without their own intensity
 * peak are missed, so the count runs below the dictionary's on careful speech; very fast speech smooths
 * dips away. See docs/analysis.md, "Pace".
 */
export interface NucleiOptions {
  /**
   * The intensity contour's window follows Praat's "To Intensity": a Kaiser-20 window of 6.4/minPitch
   * seconds (effective length 3.2/minPitch) every 0.8/minPitch seconds. The script's 50 Hz gives a 64 ms
   * effective window every 16 ms.
   */
  minPitchHz: number;
  /** Peaks below (0.99 quantile of the line's intensity + this) are silence (the script's −25 dB). */
  silenceDb: number;
  /** Two peaks are separate nuclei only if the intensity dips at least this much below each between them. */
  minDipDb: number;
  /** A peak counts as voiced when a voiced pitch frame lies within this many seconds of it. */
  voicedWithin: number;
}

/**
 * The script's settings are 50 Hz and 2 dB. Chosen on the tuning half of bench/pace (the share of tempo
 * changes read within 10 %, before the test half was run): a 100 Hz window floor (32 ms effective, every
 * 8 ms) keeps the dips of fast syllables that the 64 ms window smooths away, and a 3 dB dip then keeps
 * the shorter window's ripples within a vowel from splitting it (bench/pace/README.md).
 */
export const NUCLEI_DEFAULTS: NucleiOptions = { minPitchHz: 100, silenceDb: -25, minDipDb: 3, voicedWithin: 0.02 };

export interface IntensityContour {
  /** Time of frame 0's centre, seconds from the start of the pcm passed in. */
  start: number;
  timeStep: number;
  /** Level per frame, dB re full scale (mean removed, Kaiser-weighted mean square); −300 for silence. */
  db: Float64Array;
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for the β here). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum;
}

/** Kaiser window with β = 2π² + 0.5 (≈ 20.2, Praat's "Kaiser-20"), `n` points over its full length. */
function kaiser20(n: number): Float64Array {
  const beta = 2 * Math.PI * Math.PI + 0.5;
  const norm = besselI0(beta);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = n > 1 ? (2 * i) / (n - 1) - 1 : 0;
    w[i] = besselI0(beta * Math.sqrt(Math.max(0, 1 - x * x))) / norm;
  }
  return w;
}

/**
 * Intensity contour of `pcm` between `from` and `to` seconds (clipped to the signal), Praat-style: frames
 * as many as fit whole and centred, each the Kaiser-weighted mean square after removing the weighted mean
 * (so DC and rumble below the pitch floor do not count), in dB. Times are on the pcm's clock.
 */
export function intensityContour(pcm: Float32Array, sampleRate: number, from: number, to: number, minPitchHz = NUCLEI_DEFAULTS.minPitchHz): IntensityContour {
  if (!(sampleRate > 0)) throw new Error(`sample rate must be positive, got ${sampleRate}`);
  if (!(minPitchHz > 0)) throw new Error(`minimum pitch must be positive, got ${minPitchHz}`);
  const s0 = Math.max(0, Math.min(pcm.length, Math.round(from * sampleRate)));
  const s1 = Math.max(s0, Math.min(pcm.length, Math.round(to * sampleRate)));
  const part = pcm.subarray(s0, s1);
  const timeStep = 0.8 / minPitchHz;
  const windowSeconds = 6.4 / minPitchHz;
  const layout = frameLayout(part.length, sampleRate, windowSeconds, timeStep);
  const half = Math.floor((windowSeconds * sampleRate) / 2);
  const window = kaiser20(2 * half + 1);
  let weightSum = 0;
  for (const w of window) weightSum += w;
  const db = new Float64Array(layout.frames);
  for (let f = 0; f < layout.frames; f++) {
    const centre = Math.round((layout.start + f * timeStep) * sampleRate - 0.5);
    let mean = 0;
    for (let j = -half; j <= half; j++) {
      const i = centre + j;
      if (i >= 0 && i < part.length) mean += window[j + half]! * part[i]!;
    }
    mean /= weightSum;
    let power = 0;
    for (let j = -half; j <= half; j++) {
      const i = centre + j;
      const x = (i >= 0 && i < part.length ? part[i]! : 0) - mean;
      power += window[j + half]! * x * x;
    }
    power /= weightSum;
    db[f] = power > 1e-30 ? 10 * Math.log10(power) : -300;
  }
  return { start: s0 / sampleRate + layout.start, timeStep, db };
}

interface Peak {
  frame: number;
  time: number;
  db: number;
}

/** Local maxima of the contour (a plateau counts once, at its middle), refined by a parabola through three frames. */
function contourPeaks(c: IntensityContour): Peak[] {
  const peaks: Peak[] = [];
  const d = c.db;
  for (let i = 1; i < d.length - 1; i++) {
    if (!(d[i]! > d[i - 1]!)) continue;
    let j = i;
    while (j + 1 < d.length && d[j + 1] === d[i]) j++;
    if (j + 1 >= d.length || !(d[j + 1]! < d[i]!)) {
      i = j;
      continue;
    }
    const m = (i + j) / 2;
    let offset = 0;
    let value = d[i]!;
    if (i === j) {
      const a = d[i - 1]!;
      const b = d[i]!;
      const e = d[i + 1]!;
      const curvature = a - 2 * b + e;
      if (curvature < 0) {
        offset = (0.5 * (a - e)) / curvature;
        value = b - 0.25 * (a - e) * offset;
      }
    }
    peaks.push({ frame: Math.round(m), time: c.start + (m + offset) * c.timeStep, db: value });
    i = j;
  }
  return peaks;
}

function minBetween(d: Float64Array, from: number, to: number): number {
  let m = Infinity;
  for (let i = from; i <= to; i++) m = Math.min(m, d[i]!);
  return m;
}

function voicedNear(pitch: PitchFrames, t: number, within: number): boolean {
  const first = Math.max(0, Math.ceil((t - within - pitch.start) / pitch.timeStep));
  const last = Math.min(pitch.f0.length - 1, Math.floor((t + within - pitch.start) / pitch.timeStep));
  for (let k = first; k <= last; k++) if (pitch.f0[k]! > 0) return true;
  return false;
}

/**
 * Times (seconds, the pcm's clock) of the syllable nuclei between `from` and `to`. `pitch` is a pitch
 * track on the same clock (the analysis's own, Praat's "To Pitch (ac)"); only peaks near a voiced frame
 * count. With `pitch` null every peak that passes the level and dip tests counts.
 *
 * The dip rule, in order along the line: the current candidate and the next peak are separate nuclei when
 * the lowest intensity between them lies at least `minDipDb` below both; then the current one is kept and
 * the next becomes current. Otherwise they are one nucleus, and the louder of the two stays current. The
 * last candidate is kept (the fall to the end of speech follows it). The script compares the dip with the
 * earlier peak only and never counts the last peak; here N separated bursts give exactly N.
 */
export function syllableNuclei(
  pcm: Float32Array,
  sampleRate: number,
  from: number,
  to: number,
  pitch: PitchFrames | null,
  options: Partial<NucleiOptions> = {},
): number[] {
  const o = { ...NUCLEI_DEFAULTS, ...options };
  const contour = intensityContour(pcm, sampleRate, from, to, o.minPitchHz);
  const d = contour.db;
  if (d.length < 3) return [];
  const loud = quantile(d.filter((x) => x > -300), 0.99);
  if (loud === null) return [];
  let floor = Infinity;
  for (const x of d) floor = Math.min(floor, x);
  const threshold = Math.max(loud + o.silenceDb, floor);
  const candidates = contourPeaks(contour).filter((p) => p.db > threshold);
  const kept: Peak[] = [];
  let current = candidates[0];
  for (let k = 1; k < candidates.length && current; k++) {
    const next = candidates[k]!;
    const dip = minBetween(d, current.frame, next.frame);
    if (current.db - dip >= o.minDipDb && next.db - dip >= o.minDipDb) {
      kept.push(current);
      current = next;
    } else if (next.db > current.db) current = next;
  }
  if (current) kept.push(current);
  return kept.filter((p) => pitch === null || voicedNear(pitch, p.time, o.voicedWithin)).map((p) => p.time);
}
