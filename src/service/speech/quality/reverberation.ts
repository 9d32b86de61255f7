import { HOP } from './frames';

/**
 * How fast the sound dies away when the talker stops: the blind decay-rate method (Wen, Habets & Naylor,
 * "Blind estimation of reverberation time based on the distribution of signal decay rates", ICASSP 2008).
 * Speech stops abruptly many times a second; close to the mic those offsets fall as fast as the voice
 * does, far from it the room's reverberation (and the smaller share of direct sound) holds them up. The
 * fast end of the distribution of 150 ms level slopes therefore bounds the room's decay from below and
 * shrinks with distance.
 *
 * The envelope is the 300 Hz–8 kHz power per 10 ms frame with the noise's power in that band
 * subtracted, so a noise floor does not stop decays early.
 */

/** Slopes over 150 ms. */
export const DECAY_SPAN_FRAMES = 15;
/** Slopes start from frames within 20 dB of the line's loud frames (95th percentile) … */
const START_WITHIN_DB = 20;
/** … and at least this far above the noise, so a decay has room to show before the floor. */
const ABOVE_NOISE_DB = 10;
/** The fast end: the 10th percentile of the slopes. */
const PERCENTILE = 0.1;
/** Fewer usable starts than this (0.3 s of loud frames) and the line says nothing about the room. */
const MIN_STARTS = 30;
/** Noise subtraction leaves at least this share of the noise, so log levels stay finite. */
const RESIDUAL = 0.03;

/**
 * Decay rate in dB per second (positive; larger = drier, closer), or null when the line has too few loud
 * frames. `bandPower[t]` is frame t's 300 Hz–8 kHz power; `noisePower` the noise's power in that band.
 */
export function decayRate(
  bandPower: ArrayLike<number>,
  noisePower: number,
  sampleRate: number,
): number | null {
  const n = bandPower.length;
  if (n <= DECAY_SPAN_FRAMES) return null;
  const level = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    level[t] = 10 * Math.log10(Math.max(bandPower[t]! - noisePower, RESIDUAL * noisePower, 1e-12));
  }
  const top = percentile(Array.from(level), 0.95);
  const floor = noisePower > 0 ? 10 * Math.log10(noisePower) + ABOVE_NOISE_DB : -Infinity;
  const seconds = (DECAY_SPAN_FRAMES * HOP) / sampleRate;
  const slopes: number[] = [];
  for (let t = 0; t + DECAY_SPAN_FRAMES < n; t++) {
    if (level[t]! < top - START_WITHIN_DB || level[t]! < floor) continue;
    slopes.push((level[t + DECAY_SPAN_FRAMES]! - level[t]!) / seconds);
  }
  if (slopes.length < MIN_STARTS) return null;
  return Math.max(0, -percentile(slopes, PERCENTILE));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(p * (sorted.length - 1))))]!;
}
