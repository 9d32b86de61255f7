/**
 * Where the timeline ruler puts its ticks and labels. Pure: no DOM.
 *
 * Labels sit on round positions of the clock the editor reads. Without a timebase that is clock time
 * (every `label` seconds from 0). With a timebase it is the timecode itself: a label every `label`
 * timecode seconds counted on the timecode clock (so with a start of 00:59:58;12 the labels still read
 * 01:00:00;00, 01:00:10;00 …), not every `label` seconds of real time. In drop frame the two differ by
 * 0.1 %: real-time positions land on 01:00:04;29 and 01:01:59;28, which no editor reads as round.
 *
 * Where a round label does not exist in drop frame (";00" and ";01" are skipped at the start of every
 * minute but the tenth), the mark sits on the first frame that exists, as edit suites show it
 * (01:01:00;02).
 */
import { formatTimecode, nominalRate, startFrames } from '../../../shared/timecode';
import { formatRulerLabel, framesToSeconds, secondsToFrames, type Timebase } from './timecode';

export interface RulerMark {
  /** Seconds from the start of the recording. */
  t: number;
  /** Present on labelled (major) marks. */
  label?: string;
}

/** Label numbers skipped at the start of each non-tenth minute: 2 at 29.97, 4 at 59.94. */
const droppedPerMinute = (nominal: number) => nominal / 15;

/**
 * The label count of a frame count from 00:00:00:00: HH:MM:SS:FF read as one number at the nominal rate
 * ((HH·3600 + MM·60 + SS)·nominal + FF), skipped drop-frame labels included. No wrap at midnight.
 */
export function frameToLabelCount(frames: number, tb: Pick<Timebase, 'frameRate' | 'dropFrame'>): number {
  if (!tb.dropFrame) return frames;
  const nominal = nominalRate(tb.frameRate);
  const drop = droppedPerMinute(nominal);
  const perTenMinutes = nominal * 600 - 9 * drop;
  const perMinute = nominal * 60 - drop;
  const tens = Math.floor(frames / perTenMinutes);
  const rest = frames - tens * perTenMinutes;
  const skippedMinutes = rest < drop ? 0 : Math.floor((rest - drop) / perMinute);
  return frames + drop * (9 * tens + skippedMinutes);
}

/**
 * The frame count of a label count (the inverse of frameToLabelCount). A label drop frame skips maps to
 * the first label after it that exists.
 */
export function labelCountToFrame(count: number, tb: Pick<Timebase, 'frameRate' | 'dropFrame'>): number {
  if (!tb.dropFrame) return count;
  const nominal = nominalRate(tb.frameRate);
  const drop = droppedPerMinute(nominal);
  const totalMinutes = Math.floor(count / (nominal * 60));
  const inMinute = count - totalMinutes * nominal * 60;
  const existing = totalMinutes % 10 !== 0 && inMinute < drop ? count + (drop - inMinute) : count;
  return existing - drop * (totalMinutes - Math.floor(totalMinutes / 10));
}

/**
 * Ticks and labels for the stretch [t0, t1] of the recording (seconds), a label every `label` seconds
 * and a tick every `tick` seconds (as rulerSteps chooses them; with a timebase, read as timecode seconds,
 * and below a second as whole frames).
 */
export function rulerMarks(
  t0: number,
  t1: number,
  steps: { label: number; tick: number },
  tb: Timebase | null,
): RulerMark[] {
  const marks: RulerMark[] = [];
  if (!(t1 >= t0) || !(steps.tick > 0) || !(steps.label > 0)) return marks;
  if (!tb) {
    const per = Math.max(1, Math.round(steps.label / steps.tick));
    for (let i = Math.max(0, Math.ceil(t0 / steps.tick - 1e-9)); i * steps.tick <= t1 + 1e-9; i++) {
      const t = i * steps.tick;
      marks.push(i % per === 0 ? { t, label: formatRulerLabel(t, null, steps.label) } : { t });
    }
    return marks;
  }
  const nominal = nominalRate(tb.frameRate);
  // Steps in labels of the nominal rate: 10 s at 29.97 is 300 labels; 6 frames is 6 labels.
  const labelStep = Math.max(1, Math.round(steps.label * nominal));
  const tickStep = Math.max(1, Math.round(labelStep / Math.max(1, Math.round(steps.label / steps.tick))));
  let start = 0;
  try {
    start = startFrames(tb);
  } catch {
    start = 0; // an invalid start timecode reads from 00:00:00:00, as the readout does
  }
  const first = frameToLabelCount(start + Math.max(0, secondsToFrames(Math.max(0, t0), tb.frameRate)), tb);
  const last = frameToLabelCount(start + secondsToFrames(Math.max(0, t1), tb.frameRate), tb);
  let previousFrame = -1;
  for (let k = Math.ceil(first / tickStep); k * tickStep <= last; k++) {
    const count = k * tickStep;
    const frame = labelCountToFrame(count, tb);
    const t = framesToSeconds(frame - start, tb.frameRate);
    if (t < 0 || t > t1 + 1e-9) continue;
    const major = count % labelStep === 0;
    const mark: RulerMark = major ? { t, label: formatTimecode(frame, tb) } : { t };
    // Two round counts can meet on one existing frame (a skipped label and the next one): keep the label.
    if (frame === previousFrame) {
      if (major) marks[marks.length - 1] = mark;
      continue;
    }
    previousFrame = frame;
    marks.push(mark);
  }
  return marks;
}
