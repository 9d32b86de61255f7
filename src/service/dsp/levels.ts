/** Short-time signal levels in dBFS, the measure under onsets, backgrounds and speech levels. */

/** Level of every frame of a signal: `db[i]` is the RMS level of samples [i·hop, i·hop + frame), dBFS. */
export interface LevelTrack {
  /** Seconds between frame starts. */
  hop: number;
  /** Seconds each frame spans. */
  frame: number;
  db: Float32Array;
}

/** Floor for silent frames: −120 dBFS, below any 24-bit recording's noise. */
export const SILENT_DB = -120;

/** 10·log10 of a mean square, floored at SILENT_DB. */
export function powerToDb(meanSquare: number): number {
  return meanSquare > 1e-12 ? 10 * Math.log10(meanSquare) : SILENT_DB;
}

export function dbToPower(db: number): number {
  return 10 ** (db / 10);
}

/**
 * RMS levels of `frameSeconds` frames every `hopSeconds` (the last frame may be short; it is averaged over
 * what it has).
 */
export function frameLevels(
  pcm: Float32Array,
  sampleRate: number,
  frameSeconds = 0.025,
  hopSeconds = 0.01,
): LevelTrack {
  const frame = Math.max(1, Math.round(frameSeconds * sampleRate));
  const hop = Math.max(1, Math.round(hopSeconds * sampleRate));
  const count = pcm.length === 0 ? 0 : Math.ceil(pcm.length / hop);
  const db = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const start = i * hop;
    const end = Math.min(pcm.length, start + frame);
    let sum = 0;
    for (let j = start; j < end; j++) sum += pcm[j]! * pcm[j]!;
    db[i] = powerToDb(sum / (end - start));
  }
  return { hop: hop / sampleRate, frame: frame / sampleRate, db };
}

/** Frame indices whose whole frame lies inside [start, end) seconds (at least the frame holding `start` when the span is shorter). */
export function frameRange(track: LevelTrack, start: number, end: number): [number, number] {
  const first = Math.max(0, Math.ceil(start / track.hop - 1e-9));
  const last = Math.min(track.db.length, Math.floor((end - track.frame) / track.hop + 1e-9) + 1);
  if (last <= first) {
    const i = Math.min(track.db.length - 1, Math.max(0, Math.floor(start / track.hop)));
    return track.db.length ? [i, i + 1] : [0, 0];
  }
  return [first, last];
}

/** Power mean of frame levels (the level of the frames' signal taken together), dBFS. */
export function meanLevel(levels: ArrayLike<number>): number {
  if (levels.length === 0) return SILENT_DB;
  let sum = 0;
  for (let i = 0; i < levels.length; i++) sum += dbToPower(levels[i]!);
  return powerToDb(sum / levels.length);
}

/**
 * Peak that audio is scaled to before level-sensitive engines hear it (Silero VAD, PocketSphinx's front end):
 * near full scale, with room for resampling overshoot.
 */
export const NORMALISED_PEAK = 0.95;

/** The largest absolute sample value. */
export function peakAmplitude(pcm: Float32Array): number {
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) {
    const a = Math.abs(pcm[i]!);
    if (a > peak) peak = a;
  }
  return peak;
}

/** The gain that brings `peak` to `target`; 1 for digital silence (nothing to scale). */
export function gainToPeak(peak: number, target = NORMALISED_PEAK): number {
  return peak > 0 ? target / peak : 1;
}

/** A copy of `pcm` times `gain` (the caller's audio is often shared and is left alone). */
export function scaledCopy(pcm: Float32Array, gain: number): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! * gain;
  return out;
}
