import { readProcStat } from '../../../proc-stat';

/** CPU seconds a process has used so far (utime + stime); null where that cannot be read (ended, not Linux). */
export function processCpuSeconds(pid: number): number | null {
  try {
    const seconds = readProcStat(pid).cpuSeconds;
    return Number.isFinite(seconds) ? seconds : null;
  } catch {
    return null;
  }
}

/** The decoder's CPU seconds when its utterance was sent, at the watchdog's last look, and now. */
export interface DecoderCpu {
  atStart: number;
  atLastCheck: number;
  now: number;
}

/** Below this many CPU seconds between two looks a decoder made no progress at all. */
const NO_PROGRESS_SECONDS = 0.05;

/**
 * What the decoder's watchdog does each time its wall-clock limit passes with the utterance unfinished.
 * A stuck decoder either spins (it has used a whole limit's worth of CPU on one utterance) or waits for
 * something that never comes (no CPU since the last look): it fails. One that used some CPU, but less
 * than the limit, is slow because the machine is busy (the decoders run at a lower priority than
 * everything else, and on a loaded machine get a few per cent of a core): it gets another period.
 * Without CPU figures (not Linux) the wall-clock limit alone decides, as before.
 */
export function watchdogVerdict(cpu: DecoderCpu | null, limitSeconds: number): 'fail' | 'wait' {
  if (!cpu) return 'fail';
  if (cpu.now - cpu.atStart >= limitSeconds) return 'fail';
  if (cpu.now - cpu.atLastCheck < NO_PROGRESS_SECONDS) return 'fail';
  return 'wait';
}
