import { butterworthHighPass, butterworthLowPass, filterRange } from '../../dsp/biquad';
import { FRAME, HOP, frameCountFor, powerDb } from './frames';

/**
 * What lives below the voice: rumble and handling noise (a steady low-frequency share), wind (gusty
 * low-frequency energy dominating the signal for stretches) and plosive pops (a breath burst hitting the
 * capsule: a short low-frequency thump as loud as the speech). Measured in the time domain with
 * Butterworth filters, since 20 ms FFT frames cannot resolve 20–80 Hz.
 */

/** The low band: 20–80 Hz (below nearly every voice's fundamental; 4th-order edges). */
export const LF_LOW_HZ = 20;
export const LF_HIGH_HZ = 80;
/** The whole band the shares are taken of: above 20 Hz (infrasound and DC excluded). */
const FULL_LOW_HZ = 20;

/** A plosive frame: the low band holds at least half the frame's power … */
const PLOSIVE_SHARE = 0.5;
/** … and at least this many dB above the line's mean speech power (a pop is as loud as the loudest syllables). */
const PLOSIVE_LEVEL_DB = 6;
/** A pop lasts at most this long; longer low-frequency bursts are wind or handling. */
const PLOSIVE_MAX_SECONDS = 0.1;
/** Two pops closer than this are one. */
const PLOSIVE_JOIN_SECONDS = 0.05;

/**
 * Wind: 100 ms blocks whose 20–80 Hz band holds at least half the power (wind's energy falls steeply
 * above 100 Hz; a wider band would take in deep voices' fundamentals) …
 */
const WIND_BLOCK_FRAMES = 10;
const WIND_SHARE = 0.5;
/** … in runs of at least 200 ms (a pop is shorter) … */
const WIND_MIN_BLOCKS = 2;
/** … loud: at most this far below the line's mean speech power … */
const WIND_LEVEL_DB = -10;
/**
 * … while the band's level swings: its standard deviation over the line's blocks where it is within 20 dB
 * of the speech is at least this (gusts; a steady rumble or fan stays within ~2 dB, and is `low_frequency`).
 */
const WIND_GUST_DB = 3;
const WIND_GUST_RANGE_DB = -20;

const WARMUP = 1600;

export interface LowFrequencyReading {
  /** 20–80 Hz power over the line's speech relative to its power above 20 Hz, dB; null without speech. */
  share_db: number | null;
  /** Share of the line's duration (0–1) in gusty, low-frequency-dominated stretches. */
  wind_index: number;
  /** Seconds (recording clock) where a pop starts. */
  plosives: number[];
  /** Mean power of the line's speech frames above 20 Hz (the reference for the levels above). */
  speech_power: number;
}

/**
 * @param from first sample of the line; `to` one past its last.
 * @param speechFrame for frame t (10 ms hop from `from`), whether it lies in speech.
 */
export function lowFrequencyReading(
  pcm: Float32Array,
  sampleRate: number,
  from: number,
  to: number,
  speechFrame: (t: number) => boolean,
): LowFrequencyReading {
  const full = framePowers(
    filterRange(pcm, from, to, butterworthHighPass(FULL_LOW_HZ, sampleRate, 2), WARMUP),
  );
  const low = framePowers(
    filterRange(
      pcm,
      from,
      to,
      [...butterworthHighPass(LF_LOW_HZ, sampleRate, 2), ...butterworthLowPass(LF_HIGH_HZ, sampleRate, 4)],
      WARMUP,
    ),
  );
  const frames = full.length;
  let speechFull = 0;
  let speechLow = 0;
  let speechFrames = 0;
  for (let t = 0; t < frames; t++) {
    if (!speechFrame(t)) continue;
    speechFull += full[t]!;
    speechLow += low[t]!;
    speechFrames++;
  }
  const speechPower = speechFrames > 0 ? speechFull / speechFrames : 0;
  const share_db = speechFrames > 0 && speechFull > 0 ? powerDb(speechLow) - powerDb(speechFull) : null;

  const plosives: number[] = [];
  if (speechPower > 0) {
    const loud = speechPower * 10 ** (PLOSIVE_LEVEL_DB / 10);
    let runStart = -1;
    const close = (t: number): void => {
      if (runStart < 0) return;
      const seconds = ((t - runStart) * HOP + FRAME - HOP) / sampleRate;
      const at = (from + runStart * HOP) / sampleRate;
      if (
        seconds <= PLOSIVE_MAX_SECONDS &&
        !(plosives.length && at - plosives.at(-1)! < PLOSIVE_JOIN_SECONDS + seconds)
      )
        plosives.push(at);
      runStart = -1;
    };
    for (let t = 0; t < frames; t++) {
      const pop = speechFrame(t) && low[t]! >= PLOSIVE_SHARE * full[t]! && low[t]! >= loud;
      if (pop && runStart < 0) runStart = t;
      else if (!pop) close(t);
    }
    close(frames);
  }

  return { share_db, wind_index: windIndex(full, low, speechPower), plosives, speech_power: speechPower };
}

function windIndex(full: Float64Array, band: Float64Array, speechPower: number): number {
  const blocks = Math.floor(full.length / WIND_BLOCK_FRAMES);
  if (blocks === 0 || speechPower <= 0) return 0;
  const loud = speechPower * 10 ** (WIND_LEVEL_DB / 10);
  const present = speechPower * 10 ** (WIND_GUST_RANGE_DB / 10);
  const windy: boolean[] = [];
  const levels: number[] = [];
  for (let b = 0; b < blocks; b++) {
    let f = 0;
    let l = 0;
    for (let t = b * WIND_BLOCK_FRAMES; t < (b + 1) * WIND_BLOCK_FRAMES; t++) {
      f += full[t]!;
      l += band[t]!;
    }
    f /= WIND_BLOCK_FRAMES;
    l /= WIND_BLOCK_FRAMES;
    windy.push(f > 0 && l >= WIND_SHARE * f && l >= loud);
    if (l >= present) levels.push(powerDb(l));
  }
  if (levels.length < WIND_MIN_BLOCKS) return 0;
  const mean = levels.reduce((s, v) => s + v, 0) / levels.length;
  const std = Math.sqrt(levels.reduce((s, v) => s + (v - mean) ** 2, 0) / levels.length);
  if (std < WIND_GUST_DB) return 0;
  let kept = 0;
  for (let b = 0; b < blocks;) {
    if (!windy[b]) {
      b++;
      continue;
    }
    let e = b;
    while (e < blocks && windy[e]) e++;
    if (e - b >= WIND_MIN_BLOCKS) kept += e - b;
    b = e;
  }
  return kept / blocks;
}

/** Mean square of each 20 ms frame every 10 ms. */
function framePowers(x: Float32Array): Float64Array {
  const frames = frameCountFor(x.length);
  const out = new Float64Array(frames);
  for (let t = 0; t < frames; t++) {
    let s = 0;
    for (let i = t * HOP; i < t * HOP + FRAME; i++) s += x[i]! * x[i]!;
    out[t] = s / FRAME;
  }
  return out;
}
