/**
 * Clipping: samples stuck at the converter's rail. A clipped recording piles samples up at one amplitude
 * (the clip level) on either side; a natural signal reaches its extreme in one or two samples. Each side
 * (positive, negative) is judged separately, since analogue stages often clip one side first.
 *
 * Two shapes are recognised:
 * - flat plateaus (clipped at this sample rate): at least MIN_PLATEAU samples within 0.01% of the side's
 *   extreme, some of them consecutive unless the extreme is full scale (the rail itself). The clipped
 *   samples are exactly those.
 * - rippled plateaus (clipped at 44.1/48 kHz, then resampled to 16 kHz, whose low-pass filter rings around
 *   the rail): a spike in the amplitude histogram near the extreme, at least SPIKE_RATIO times the density
 *   just below it. The clipped samples are those above the spike's lower edge.
 */

export interface ClipLevels {
  /** Samples at or above this are clipped on the positive side; null when that side is not clipped. */
  positive: number | null;
  negative: number | null;
}

/** A side quieter than this (−26 dBFS peak) is not judged: a quiet recording's peak is a few quantisation steps. */
const MIN_PEAK = 0.05;
const PLATEAU_TOLERANCE = 1e-4;
const MIN_PLATEAU = 3;
/** 16-bit full scale is ±32767/32768 and −1; anything this close is on the rail. */
const FULL_SCALE = 32_766 / 32_768;
/** The histogram covers the top half of the side's range, 0.25% of the peak per bin. */
const HIST_BINS = 200;
/** The density just below a candidate bin: bins 10–40 under it (2.5–10% of the peak). */
const TREND_NEAR = 10;
const TREND_FAR = 40;
const SPIKE_RATIO = 4;
const MIN_SPIKE = 8;
/** The rail lies at least 0.75% below the side's extreme (ringing overshoots it). */
const MIN_OVERSHOOT_BINS = 3;

export function clipLevels(pcm: Float32Array): ClipLevels {
  return { positive: sideLevel(pcm, 1), negative: sideLevel(pcm, -1) };
}

function sideLevel(pcm: Float32Array, sign: 1 | -1): number | null {
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) if (sign * pcm[i]! > peak) peak = sign * pcm[i]!;
  if (peak < MIN_PEAK) return null;
  const plateau = peak * (1 - PLATEAU_TOLERANCE);
  const low = peak / 2;
  const width = (peak - low) / HIST_BINS;
  const hist = new Float64Array(HIST_BINS);
  let atPeak = 0;
  let run = 0;
  let longest = 0;
  for (let i = 0; i < pcm.length; i++) {
    const v = sign * pcm[i]!;
    run = v >= plateau ? run + 1 : 0;
    if (run > longest) longest = run;
    if (v < low) continue;
    if (v >= plateau) atPeak++;
    hist[Math.min(HIST_BINS - 1, Math.floor((v - low) / width))]!++;
  }
  // Samples on the converter's rail (full scale) are clipped however briefly; below it, a periodic test
  // tone can revisit its exact peak, and only a clipped signal stays there for consecutive samples.
  if (atPeak >= MIN_PLATEAU && (longest >= 2 || peak >= FULL_SCALE)) return sign * plateau;
  // Rippled rail: the bin standing highest above the density just below it.
  const trendAt = (b: number): number => {
    let sum = 0;
    for (let j = b - TREND_FAR; j < b - TREND_NEAR; j++) sum += hist[j]!;
    return Math.max(1, sum / (TREND_FAR - TREND_NEAR));
  };
  let best = -1;
  let bestRatio = 0;
  for (let b = TREND_FAR; b < HIST_BINS; b++) {
    const ratio = hist[b]! / trendAt(b);
    if (ratio > bestRatio) {
      bestRatio = ratio;
      best = b;
    }
  }
  // The resampler's ringing overshoots the rail; a pile-up in the very top bins with nothing above it is
  // the arcsine distribution of a steady tone's peaks, not a rail.
  if (best < 0 || best > HIST_BINS - MIN_OVERSHOOT_BINS || bestRatio < SPIKE_RATIO || hist[best]! < MIN_SPIKE)
    return null;
  // The ringing spreads the rail over a few bins: count it from where it rises above twice the trend.
  const trend = trendAt(best);
  let edge = best;
  while (edge > best - TREND_NEAR && hist[edge - 1]! > 2 * trend) edge--;
  return sign * (low + edge * width);
}

/** Clipped samples of `pcm[from, to)` given the recording's clip levels. */
export function countClipped(pcm: Float32Array, from: number, to: number, levels: ClipLevels): number {
  if (levels.positive === null && levels.negative === null) return 0;
  const pos = levels.positive ?? Infinity;
  const neg = levels.negative ?? -Infinity;
  let count = 0;
  for (let i = from; i < to; i++) {
    const v = pcm[i]!;
    if (v >= pos || v <= neg) count++;
  }
  return count;
}
