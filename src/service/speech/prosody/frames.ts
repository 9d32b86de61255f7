/**
 * Time conventions shared by the prosody measures, the same as Praat's so frame times and pulse times
 * line up with Praat's output: sample k (0-based) of a signal covers [k/fs, (k+1)/fs) and sits at its
 * centre, (k + 0.5)/fs seconds from the signal's start.
 */

/** Frames of a short-term analysis: as many as fit whole in the signal, centred in it. */
export interface FrameLayout {
  frames: number;
  /** Time of frame 0's centre, s from the signal's start. */
  start: number;
  timeStep: number;
}

/**
 * Fits as many analysis windows of `windowDuration` seconds, `timeStep` apart, as the signal holds, and
 * centres the run of frames in the signal (Praat's short-term analysis). Zero frames when the signal is
 * shorter than one window.
 */
export function frameLayout(samples: number, sampleRate: number, windowDuration: number, timeStep: number): FrameLayout {
  const dx = 1 / sampleRate;
  const duration = dx * samples;
  if (!(windowDuration <= duration)) return { frames: 0, start: 0.5 * duration, timeStep };
  const frames = Math.floor((duration - windowDuration) / timeStep) + 1;
  const start = 0.5 * duration - 0.5 * (frames * timeStep) + 0.5 * timeStep;
  return { frames, start, timeStep };
}

/** The sample whose centre is at or before time `t` (may be out of range). */
export function sampleAtOrBefore(t: number, sampleRate: number): number {
  const dx = 1 / sampleRate;
  return Math.floor((t - 0.5 * dx) / dx);
}

/** The first sample whose centre is at or after time `t` (may be out of range). */
export function sampleAtOrAfter(t: number, sampleRate: number): number {
  const dx = 1 / sampleRate;
  return Math.ceil((t - 0.5 * dx) / dx);
}

/** The sample whose centre is nearest to `t`, halves rounding up (may be out of range). */
export function nearestSample(t: number, sampleRate: number): number {
  const dx = 1 / sampleRate;
  return Math.floor((t - 0.5 * dx) / dx + 0.5);
}

/** Time of sample `k`'s centre. */
export function sampleTime(k: number, sampleRate: number): number {
  return (k + 0.5) / sampleRate;
}
