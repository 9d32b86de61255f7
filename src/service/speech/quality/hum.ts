import { butterworthLowPass, filterRange } from '../../dsp/biquad';
import { createPowerSpectrum } from '../../dsp/spectrum';
import { periodicHannWindow } from '../../dsp/window';
import { powerDb } from './frames';

/**
 * Mains hum: narrow, steady lines at 50 or 60 Hz and their harmonics. A Welch spectrum with ~1 Hz
 * resolution (1.024 s Hann frames, half overlapping) averaged over the stretch shows them as peaks a few
 * bins wide; voices glide and spread over many bins. A line counts when its 3 centre bins stand out from the
 * median of the spectrum 8–20 Hz either side. The signal is first low-passed (8th-order Butterworth at
 * 750 Hz) and decimated by 8, so a 2048-point FFT gives the same resolution at an eighth of the cost.
 */

const DECIMATE = 8;
const ANTI_ALIAS_HZ = 750;
/** 1.024 s at the decimated rate (2 kHz from 16 kHz). */
const FFT = 2048;
const HOP = FFT / 2;
const MAINS = [50, 60] as const;
/** Harmonics up to this frequency are examined. */
const MAX_HARMONIC_HZ = 720;
/**
 * Mains frequency stays within ±0.2 Hz of nominal (grid operators hold it tighter); a line's interpolated
 * frequency must lie within 0.25 Hz × its harmonic number of the harmonic.
 */
const DRIFT_HZ = 0.25;
/** A line stands out by this much (3 centre bins against 3 × the local median bin). */
export const HUM_PROMINENCE_DB = 12;
/** Hum needs the fundamental or at least this many harmonics standing out. */
const MIN_LINES = 2;
/** Neighbourhood for the local median: bins 8–20 away (≈ 8–20 Hz). */
const NEAR = 8;
const FAR = 20;

export interface HumReading {
  mains_hz: 50 | 60;
  /** Power of the hum lines above the local background, dBFS. */
  level_db: number;
  /** Frequencies (Hz) of the lines that stand out, and how far (dB). */
  lines: { hz: number; prominence_db: number }[];
}

let analyser: { power: ReturnType<typeof createPowerSpectrum>; window: Float32Array; scale: number } | null =
  null;

function welch(pcm: Float32Array, sampleRate: number, from: number, to: number): Float64Array | null {
  const length = Math.floor((to - from) / DECIMATE);
  const frames = length < FFT ? 0 : Math.floor((length - FFT) / HOP) + 1;
  if (frames < 1) return null;
  const filtered = filterRange(
    pcm,
    from,
    to,
    butterworthLowPass(ANTI_ALIAS_HZ, sampleRate, 8),
    2 * sampleRate,
  );
  const low = new Float32Array(length);
  for (let i = 0; i < length; i++) low[i] = filtered[i * DECIMATE]!;
  if (!analyser) {
    const window = periodicHannWindow(FFT);
    const energy = window.reduce((s, w) => s + w * w, 0);
    analyser = { power: createPowerSpectrum(FFT), window, scale: 2 / (FFT * energy) };
  }
  const { power, window, scale } = analyser;
  const frame = new Float32Array(FFT);
  const spectrum = new Float64Array(FFT / 2 + 1);
  const sum = new Float64Array(FFT / 2 + 1);
  for (let f = 0; f < frames; f++) {
    const start = f * HOP;
    for (let i = 0; i < FFT; i++) frame[i] = low[start + i]! * window[i]!;
    power(frame, spectrum);
    for (let k = 0; k < sum.length; k++) sum[k]! += spectrum[k]!;
  }
  for (let k = 0; k < sum.length; k++) sum[k]! *= scale / frames;
  return sum;
}

/** Hum in `pcm[from, to)` (at least 1.024 s), or null when none stands out. */
export function detectHum(
  pcm: Float32Array,
  sampleRate: number,
  from: number,
  to: number,
): HumReading | null {
  const spectrum = welch(pcm, sampleRate, from, to);
  if (!spectrum) return null;
  const binHz = sampleRate / DECIMATE / FFT;
  let best: HumReading | null = null;
  for (const mains of MAINS) {
    const lines: { hz: number; prominence_db: number; excess: number }[] = [];
    for (let h = 1; h * mains <= MAX_HARMONIC_HZ; h++) {
      const centre = (h * mains) / binHz;
      const reach = Math.ceil((DRIFT_HZ * h) / binHz) + 1;
      let peak = Math.round(centre);
      for (let k = Math.round(centre) - reach; k <= Math.round(centre) + reach; k++)
        if (spectrum[k]! > spectrum[peak]!) peak = k;
      // Parabolic interpolation of the log spectrum places the line to ~0.1 Hz.
      const [a, b, c] = [spectrum[peak - 1]!, spectrum[peak]!, spectrum[peak + 1]!].map(powerDb) as [
        number,
        number,
        number,
      ];
      const denominator = a - 2 * b + c;
      const hz = (peak + (denominator < 0 ? (0.5 * (a - c)) / denominator : 0)) * binHz;
      if (Math.abs(hz - h * mains) > DRIFT_HZ * h) continue;
      const neighbours: number[] = [];
      for (let d = NEAR; d <= FAR; d++) neighbours.push(spectrum[peak - d]!, spectrum[peak + d]!);
      neighbours.sort((a, b) => a - b);
      const background = neighbours[neighbours.length >> 1]!;
      const line = spectrum[peak - 1]! + spectrum[peak]! + spectrum[peak + 1]!;
      const prominence = powerDb(line) - powerDb(3 * background);
      if (prominence >= HUM_PROMINENCE_DB)
        lines.push({ hz, prominence_db: prominence, excess: line - 3 * background });
    }
    const fundamental = lines.some((l) => Math.abs(l.hz - mains) < 2);
    if (!fundamental && lines.length < MIN_LINES) continue;
    const reading: HumReading = {
      mains_hz: mains,
      level_db: powerDb(lines.reduce((s, l) => s + l.excess, 0)),
      lines: lines.map(({ hz, prominence_db }) => ({ hz, prominence_db })),
    };
    if (!best || reading.level_db > best.level_db) best = reading;
  }
  return best;
}
