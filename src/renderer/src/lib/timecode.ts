/**
 * Timecode for the ruler and the current-time readout. Mirrors the service's rules
 * (src/service/timecode): NTSC rates are exact rationals (29.97 = 30000/1001), labels count at the
 * nominal rate, SMPTE drop frame at 29.97/59.94 skips 2/4 label numbers each minute except every
 * tenth and is written with ';' before the frames, and the start timecode offsets every label.
 * Pure: no DOM, no state.
 */

export const FRAME_RATES = ['23.976', '24', '25', '29.97', '30', '50', '59.94', '60'] as const;
export type FrameRate = (typeof FRAME_RATES)[number];

export interface Rational {
  num: number;
  den: number;
}

/** The recording's timebase as the studio needs it (the API's Media without tape/source). */
export interface Timebase {
  frameRate: FrameRate;
  dropFrame: boolean;
  /** Label of the first frame, or null when the file carries none (counting then starts at 00:00:00:00). */
  startTimecode: string | null;
}

const RATIONAL: Record<FrameRate, Rational> = {
  '23.976': { num: 24000, den: 1001 },
  '24': { num: 24, den: 1 },
  '25': { num: 25, den: 1 },
  '29.97': { num: 30000, den: 1001 },
  '30': { num: 30, den: 1 },
  '50': { num: 50, den: 1 },
  '59.94': { num: 60000, den: 1001 },
  '60': { num: 60, den: 1 },
};

/** Frame stepping without a timebase uses PAL's 25 fps, a common editorial default. */
export const DEFAULT_STEP_FPS = 25;

// Float seconds from the media element land a hair below exact frame boundaries (e.g. 1001/30000 * 3).
const EPSILON_FRAMES = 1e-6;

export function isFrameRate(value: unknown): value is FrameRate {
  return typeof value === 'string' && (FRAME_RATES as readonly string[]).includes(value);
}

export function rationalRate(rate: FrameRate): Rational {
  return RATIONAL[rate];
}

export function nominalRate(rate: FrameRate): number {
  const { num, den } = RATIONAL[rate];
  return Math.round(num / den);
}

export function supportsDropFrame(rate: FrameRate): boolean {
  return rate === '29.97' || rate === '59.94';
}

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

/** Index of the frame showing at `seconds` (the frame whose span contains it). */
export function secondsToFrames(seconds: number, rate: FrameRate): number {
  const { num, den } = RATIONAL[rate];
  return Math.floor((Math.max(0, seconds) * num) / den + EPSILON_FRAMES);
}

/** Start time of frame `frames` in seconds. */
export function framesToSeconds(frames: number, rate: FrameRate): number {
  const { num, den } = RATIONAL[rate];
  return (frames * den) / num;
}

function dropPerMinute(rate: FrameRate): number {
  return nominalRate(rate) / 15;
}

function framesPerDay(rate: FrameRate, dropFrame: boolean): number {
  const nominal = nominalRate(rate);
  return nominal * 86_400 - (dropFrame ? dropPerMinute(rate) * (1440 - 144) : 0);
}

const LABEL = /^(\d{2}):(\d{2}):(\d{2})([:;])(\d{2})$/;

/** Frame count of a label from 00:00:00:00, or null when it is not a valid label in this timebase. */
export function labelToFrames(label: string, rate: FrameRate, dropFrame: boolean): number | null {
  const m = LABEL.exec(label);
  if (!m) return null;
  const [hh, mm, ss, sep, ff] = [Number(m[1]), Number(m[2]), Number(m[3]), m[4], Number(m[5])];
  const nominal = nominalRate(rate);
  if (hh > 23 || mm > 59 || ss > 59 || ff >= nominal) return null;
  if ((sep === ';') !== dropFrame) return null;
  const minutes = hh * 60 + mm;
  let count = (minutes * 60 + ss) * nominal + ff;
  if (dropFrame) {
    const drop = dropPerMinute(rate);
    if (ss === 0 && ff < drop && mm % 10 !== 0) return null;
    count -= drop * (minutes - Math.floor(minutes / 10));
  }
  return count;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Label of a frame count from 00:00:00:00, wrapping at 24 hours like timecode does. */
export function framesToLabel(frames: number, rate: FrameRate, dropFrame: boolean): string {
  const day = framesPerDay(rate, dropFrame);
  let count = ((Math.trunc(frames) % day) + day) % day;
  const nominal = nominalRate(rate);
  if (dropFrame) {
    const drop = dropPerMinute(rate);
    const perTenMinutes = nominal * 600 - 9 * drop;
    const perMinute = nominal * 60 - drop;
    const tens = Math.floor(count / perTenMinutes);
    const rest = count % perTenMinutes;
    const skippedMinutes = rest < drop ? 0 : Math.floor((rest - drop) / perMinute);
    count += drop * (9 * tens + skippedMinutes);
  }
  const ff = count % nominal;
  const totalSeconds = Math.floor(count / nominal);
  return `${two(Math.floor(totalSeconds / 3600))}:${two(Math.floor(totalSeconds / 60) % 60)}:${two(totalSeconds % 60)}${dropFrame ? ';' : ':'}${two(ff)}`;
}

/** Timecode label at `seconds` into the recording, offset by the start timecode. */
export function secondsToTimecode(seconds: number, tb: Timebase): string {
  const start = tb.startTimecode ? (labelToFrames(tb.startTimecode, tb.frameRate, tb.dropFrame) ?? 0) : 0;
  return framesToLabel(start + secondsToFrames(seconds, tb.frameRate), tb.frameRate, tb.dropFrame);
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
  if (!tb) return 1 / DEFAULT_STEP_FPS;
  const { num, den } = RATIONAL[tb.frameRate];
  return den / num;
}

/**
 * Move `count` frames from `seconds`, landing on a frame start, so repeated steps never drift and a
 * step from mid-frame goes to the neighbouring frame rather than a fraction of one.
 */
export function stepFrames(seconds: number, count: number, tb: Timebase | null, duration: number): number {
  let target: number;
  if (tb) {
    const frame = secondsToFrames(seconds, tb.frameRate) + count;
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
