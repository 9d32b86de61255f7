/**
 * Timecode for the ruler and the current-time readout, built on the service's own timecode module
 * (src/shared/timecode) so the studio and the exports count frames identically. Pure: no DOM, no state.
 */
import {
  FRAME_RATES,
  framesToSeconds,
  isFrameRate,
  secondsToFrames,
  secondsToTimecode as clockTimecode,
  supportsDropFrame,
  type FrameRate,
} from '../../../shared/timecode';

export { FRAME_RATES, framesToSeconds, isFrameRate, secondsToFrames, supportsDropFrame, type FrameRate };

/** The recording's timebase as the studio needs it (the API's Media without tape/source). */
export interface Timebase {
  frameRate: FrameRate;
  dropFrame: boolean;
  /** Label of the first frame, or null when the file carries none (counting then starts at 00:00:00:00). */
  startTimecode: string | null;
}

/** Frame stepping without a timebase uses PAL's 25 fps, a common editorial default. */
export const DEFAULT_STEP_FPS = 25;

// Float seconds from the media element land a hair below exact frame boundaries (e.g. 1001/30000 * 3).
const EPSILON_FRAMES = 1e-6;

/** Build a timebase from the API's media object; null when the recording has none. */
export function timebaseFromMedia(
  media: { frame_rate: string; drop_frame: boolean; start_timecode: string | null } | null | undefined,
): Timebase | null {
  if (!media || !isFrameRate(media.frame_rate)) return null;
  return {
    frameRate: media.frame_rate,
    dropFrame: media.drop_frame && supportsDropFrame(media.frame_rate),
    startTimecode: media.start_timecode,
  };
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Timecode label at `seconds` into the recording, offset by the start timecode. */
export function secondsToTimecode(seconds: number, tb: Timebase): string {
  return clockTimecode(Math.max(0, seconds), tb);
}

/** Clock time `HH:MM:SS.mmm` for recordings without a timebase. */
export function formatClock(seconds: number): string {
  const ms = Math.round(Math.max(0, seconds) * 1000);
  const s = Math.floor(ms / 1000);
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** The current-time readout: timecode with a timebase, clock time in seconds without. */
export function formatReadout(seconds: number, tb: Timebase | null): string {
  return tb ? secondsToTimecode(seconds, tb) : formatClock(seconds);
}

/**
 * A length (a recording's, a range's) on the timebase: counted from zero, whatever the start timecode, so a
 * 7 min 9 s recording from 01:00:00;00 is "00:07:09;…" long, not "01:07:09;…" (that is where it ends).
 */
export function formatLength(seconds: number, tb: Timebase | null): string {
  return formatReadout(seconds, tb ? { ...tb, startTimecode: null } : null);
}

/** Short ruler label: timecode with a timebase; otherwise M:SS, with tenths when ticks are sub-second. */
export function formatRulerLabel(seconds: number, tb: Timebase | null, stepSeconds: number): string {
  if (tb) return secondsToTimecode(seconds, tb);
  const whole = Math.floor(seconds + 1e-9);
  const h = Math.floor(whole / 3600);
  const m = Math.floor(whole / 60) % 60;
  const base = h > 0 ? `${h}:${two(m)}:${two(whole % 60)}` : `${m}:${two(whole % 60)}`;
  if (stepSeconds >= 1) return base;
  const tenths = Math.floor((seconds - whole) * 10 + 1e-6);
  return `${base}.${tenths}`;
}

/** Seconds per frame of the timebase (25 fps when there is none). */
export function frameDurationSeconds(tb: Timebase | null): number {
  return tb ? framesToSeconds(1, tb.frameRate) : 1 / DEFAULT_STEP_FPS;
}

/**
 * Move `count` frames from `seconds`, landing on a frame start, so repeated steps never drift and a
 * step from mid-frame goes to the neighbouring frame rather than a fraction of one.
 */
export function stepFrames(seconds: number, count: number, tb: Timebase | null, duration: number): number {
  let target: number;
  if (tb) {
    const frame = secondsToFrames(Math.max(0, seconds), tb.frameRate) + count;
    target = framesToSeconds(frame, tb.frameRate);
  } else {
    const frame = Math.floor(seconds * DEFAULT_STEP_FPS + EPSILON_FRAMES) + count;
    target = frame / DEFAULT_STEP_FPS;
  }
  return Math.min(Math.max(0, target), Math.max(0, duration));
}

/** Ruler spacing for a zoom level: labels at least `minLabelPx` apart, ticks a fifth of that. */
export function rulerSteps(
  pxPerSecond: number,
  tb: Timebase | null,
  minLabelPx = tb ? 120 : 70,
): { label: number; tick: number } {
  const frame = frameDurationSeconds(tb);
  const candidates = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  const label = candidates.find((s) => s * pxPerSecond >= minLabelPx) ?? 7200;
  // Below a second with a timebase, label on frame boundaries so labels read as whole frames.
  const snapped = tb && label < 1 ? Math.max(frame, Math.round(label / frame) * frame) : label;
  return { label: snapped, tick: snapped / 5 };
}
