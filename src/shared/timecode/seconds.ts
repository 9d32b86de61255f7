/**
 * Seconds on the recording's clock ↔ frames ↔ timecode labels.
 *
 * Rounding: an instant maps to the frame it falls in (floor), so 0.999 s at 25 fps is frame 24 and a
 * label always names a frame that has already started. Instants within a millionth of a frame below a
 * boundary count as on it, so framesToSeconds → secondsToFrames round-trips despite float error.
 */
import { type Timebase, formatTimecode, framesPerDay, parseTimecode } from './label';
import { type FrameRate, rationalRate } from './rates';

const BOUNDARY_TOLERANCE = 1e-6;

/** The frame an instant falls in (floor), counted from the start of the recording. */
export function secondsToFrames(seconds: number, rate: FrameRate): number {
  const { num, den } = rationalRate(rate);
  return Math.floor((seconds * num) / den + BOUNDARY_TOLERANCE);
}

/** Frames needed to cover an instant (ceil): the exclusive end frame of a stretch ending at `seconds`. */
export function secondsToFramesCeil(seconds: number, rate: FrameRate): number {
  const { num, den } = rationalRate(rate);
  // `+ 0` turns the -0 that ceil gives just below zero into 0.
  return Math.ceil((seconds * num) / den - BOUNDARY_TOLERANCE) + 0;
}

/** When a frame starts, in seconds. */
export function framesToSeconds(frames: number, rate: FrameRate): number {
  const { num, den } = rationalRate(rate);
  return (frames * den) / num;
}

export interface TimecodeClock extends Timebase {
  /** Label of the recording's first frame; null/undefined means 00:00:00:00 (00:00:00;00 in drop frame). */
  startTimecode?: string | null;
}

/** Frame count of the clock's start label; throws RangeError with a readable reason if it is invalid. */
export function startFrames(clock: TimecodeClock): number {
  if (clock.startTimecode == null) return 0;
  const parsed = parseTimecode(clock.startTimecode, clock);
  if (!parsed.ok) throw new RangeError(`start timecode ${parsed.reason}`);
  return parsed.frames;
}

/**
 * Label of the frame an instant of the recording falls in: start timecode + elapsed frames, wrapping
 * at 24 hours. Throws RangeError for an invalid start timecode (validate with parseTimecode first).
 */
export function secondsToTimecode(seconds: number, clock: TimecodeClock): string {
  return formatTimecode(startFrames(clock) + secondsToFrames(seconds, clock.frameRate), clock);
}

/**
 * Seconds from the start of the recording at which a label's frame begins. Labels "before" the start
 * timecode are read as after midnight (recordings are shorter than a day), so the result lies in
 * [0, 24 h). Throws RangeError with the parse reason for a label that is not valid in the timebase.
 */
export function timecodeToSeconds(label: string, clock: TimecodeClock): number {
  const parsed = parseTimecode(label, clock);
  if (!parsed.ok) throw new RangeError(parsed.reason);
  const day = framesPerDay(clock);
  const elapsed = (((parsed.frames - startFrames(clock)) % day) + day) % day;
  return framesToSeconds(elapsed, clock.frameRate);
}
