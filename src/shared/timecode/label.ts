/**
 * Timecode labels (HH:MM:SS:FF, or HH:MM:SS;FF in drop frame) ↔ frame counts from 00:00:00:00.
 *
 * Drop frame (SMPTE 12M) keeps labels close to wall-clock time at 29.97/59.94 by skipping the first
 * 2 (29.97) or 4 (59.94) frame *numbers* of every minute except each tenth minute. No frames of
 * picture are dropped, only labels, so some labels (e.g. 00:01:00;00 at 29.97) do not exist.
 */
import { type FrameRate, nominalRate, supportsDropFrame } from './rates';

export interface Timebase {
  frameRate: FrameRate;
  dropFrame: boolean;
}

export type ParseTimecodeResult = { ok: true; frames: number } | { ok: false; reason: string };

const LABEL = /^(\d{2}):(\d{2}):(\d{2})([:;])(\d{2})$/;

/** Label numbers skipped at the start of each non-tenth minute: 2 at 29.97, 4 at 59.94. */
function droppedPerMinute(nominal: number): number {
  return nominal / 15;
}

/** Frames in a day of labels, 00:00:00:00 up to (not including) 24:00:00:00. */
export function framesPerDay(tb: Timebase): number {
  const nominal = nominalRate(tb.frameRate);
  const frames = nominal * 86_400;
  // 1440 minutes a day, of which 144 are tenth minutes that keep all their labels.
  return tb.dropFrame ? frames - droppedPerMinute(nominal) * (1440 - 144) : frames;
}

function example(tb: Timebase): string {
  return tb.dropFrame ? '01:00:00;00' : '01:00:00:00';
}

function rateName(tb: Timebase): string {
  return `${tb.frameRate} fps${tb.dropFrame ? ' drop frame' : ''}`;
}

/** Validates a label against a timebase and returns its frame count from 00:00:00:00. */
export function parseTimecode(label: string, tb: Timebase): ParseTimecodeResult {
  if (tb.dropFrame && !supportsDropFrame(tb.frameRate)) {
    return { ok: false, reason: `drop frame exists only at 29.97 and 59.94 fps, not at ${tb.frameRate} fps` };
  }
  const m = typeof label === 'string' ? LABEL.exec(label) : null;
  if (!m) {
    const shape = tb.dropFrame ? 'HH:MM:SS;FF' : 'HH:MM:SS:FF';
    return {
      ok: false,
      reason: `"${String(label)}" is not a timecode: expected ${shape} with two digits in each field, e.g. ${example(tb)}`,
    };
  }
  const [, hh, mm, ss, sep, ff] = m as unknown as [string, string, string, string, string, string];
  if (tb.dropFrame && sep !== ';') {
    return {
      ok: false,
      reason: `drop-frame timecode separates the frames with ';' (e.g. ${example(tb)}); "${label}" uses ':', which marks non-drop timecode`,
    };
  }
  if (!tb.dropFrame && sep !== ':') {
    return {
      ok: false,
      reason: `non-drop timecode separates the frames with ':' (e.g. ${example(tb)}); "${label}" uses ';', which marks drop-frame timecode`,
    };
  }
  const hours = Number(hh);
  const minutes = Number(mm);
  const seconds = Number(ss);
  const frames = Number(ff);
  const nominal = nominalRate(tb.frameRate);
  if (hours > 23) return { ok: false, reason: `"${label}": hours must be 00 to 23` };
  if (minutes > 59) return { ok: false, reason: `"${label}": minutes must be 00 to 59` };
  if (seconds > 59) return { ok: false, reason: `"${label}": seconds must be 00 to 59` };
  if (frames >= nominal) {
    return {
      ok: false,
      reason: `"${label}": frames must be 00 to ${nominal - 1} at ${tb.frameRate} fps`,
    };
  }
  const totalMinutes = hours * 60 + minutes;
  let count = (totalMinutes * 60 + seconds) * nominal + frames;
  if (tb.dropFrame) {
    const drop = droppedPerMinute(nominal);
    if (seconds === 0 && frames < drop && minutes % 10 !== 0) {
      const skipped = Array.from({ length: drop }, (_, i) => String(i).padStart(2, '0'));
      const next = `${hh}:${mm}:00;${String(drop).padStart(2, '0')}`;
      return {
        ok: false,
        reason:
          `"${label}" does not exist in ${rateName(tb)} timecode: frames ${skipped.join(', ')} are skipped ` +
          `at the start of every minute except minutes 00, 10, 20, 30, 40 and 50; the next label is ${next}`,
      };
    }
    count -= drop * (totalMinutes - Math.floor(totalMinutes / 10));
  }
  return { ok: true, frames: count };
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Label for a frame count from 00:00:00:00. Counts outside one day wrap around midnight, as timecode
 * does (a day's frame count + 5 → 00:00:00:05; -1 → the last frame before midnight).
 */
export function formatTimecode(frames: number, tb: Timebase): string {
  if (!Number.isInteger(frames)) throw new RangeError(`frame count must be an integer, got ${frames}`);
  if (tb.dropFrame && !supportsDropFrame(tb.frameRate)) {
    throw new RangeError(`drop frame exists only at 29.97 and 59.94 fps, not at ${tb.frameRate} fps`);
  }
  const day = framesPerDay(tb);
  let count = ((frames % day) + day) % day;
  const nominal = nominalRate(tb.frameRate);
  if (tb.dropFrame) {
    // Turn the real frame count into the count of labels, skipped labels included.
    const drop = droppedPerMinute(nominal);
    const perTenMinutes = nominal * 600 - 9 * drop;
    const perMinute = nominal * 60 - drop;
    const tens = Math.floor(count / perTenMinutes);
    const rest = count % perTenMinutes;
    // The first minute of each ten keeps all labels; each later minute skipped `drop` labels.
    const skippedMinutes = rest < drop ? 0 : Math.floor((rest - drop) / perMinute);
    count += drop * (9 * tens + skippedMinutes);
  }
  const ff = count % nominal;
  const totalSeconds = Math.floor(count / nominal);
  const ss = totalSeconds % 60;
  const mm = Math.floor(totalSeconds / 60) % 60;
  const hh = Math.floor(totalSeconds / 3600);
  return `${two(hh)}:${two(mm)}:${two(ss)}${tb.dropFrame ? ';' : ':'}${two(ff)}`;
}
