import fs from 'node:fs';
import os from 'node:os';

/**
 * Background work (recognizer and ffmpeg children, the analysis and diarization worker threads) runs at a
 * lower CPU priority than the service's event loop, so that on a busy machine the HTTP thread is scheduled
 * first and reads stay fast while a long recording is transcribed and analysed. Everything here fails
 * silently where the platform has no such thing (or refuses): priority is an optimisation, not a need.
 */

export const DEFAULT_BACKGROUND_NICE = 10;

/** `TAKELINE_BACKGROUND_NICE`: how many nice steps below the service; 0 turns it off; default 10. */
export function backgroundNiceSteps(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_BACKGROUND_NICE;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_BACKGROUND_NICE;
}

/** The niceness for background work: `steps` below the service's own, within Unix's −20…19. */
export function backgroundNiceness(serviceNice: number, steps: number): number {
  return Math.max(-20, Math.min(19, serviceNice + steps));
}

/** The thread id in a `/proc/thread-self` link (`<pid>/task/<tid>`), or null. */
export function threadIdFromLink(link: string): number | null {
  const match = /^\d+\/task\/(\d+)$/.exec(link);
  return match ? Number(match[1]) : null;
}

/** This process's steps (ServiceConfig.backgroundNice), set once at its start. */
let configuredSteps = DEFAULT_BACKGROUND_NICE;

/**
 * Sets how far below the service background work runs, for the calls that follow in this process or thread (the
 * service at its start, from its parsed configuration; a worker thread or child process at its own).
 */
export function configureBackgroundNice(steps: number): void {
  configuredSteps = steps;
}

/**
 * The niceness for deferred work: what a finished call leaves to be done (a kept recording's analysis and
 * speaker adaptation), twice the steps below the service, so it sits below the background work people wait
 * for (a request's decoders and ffmpeg) and never takes the CPU from the next call.
 */
export function deferredNiceness(serviceNice: number, steps: number): number {
  return backgroundNiceness(serviceNice, 2 * steps);
}

function target(steps: number, deferred = false): number | null {
  if (steps === 0) return null;
  // The main thread's niceness (on Linux the process id names the main thread), also from a worker thread.
  const own = os.getPriority(process.pid);
  return deferred ? deferredNiceness(own, steps) : backgroundNiceness(own, steps);
}

/**
 * Sets every thread of process `pid` to `nice`. Linux keeps niceness per thread and `setpriority` on a process id
 * changes its main thread only: a child that started threads before it was lowered (Node's platform and libuv
 * pool threads, where onnxruntime's runs and ffmpeg's decoders compute) kept them at the service's niceness. The
 * main thread goes first, so the threads it makes from then on inherit the new value; the list is read again until
 * no thread made meanwhile is left behind. Elsewhere the call is process-wide already.
 */
function setProcessNice(pid: number, nice: number): void {
  os.setPriority(pid, nice);
  if (process.platform !== 'linux') return;
  for (let pass = 0; pass < 5; pass++) {
    let changed = false;
    let tids: number[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return; // ended, or no /proc
    }
    for (const tid of tids) {
      try {
        if (os.getPriority(tid) !== nice) {
          os.setPriority(tid, nice);
          changed = true;
        }
      } catch {
        // A thread that ended meanwhile.
      }
    }
    if (!changed) return;
  }
}

/**
 * Lowers a child process's priority, all its threads (call right after spawning it: the one place a child's
 * priority is set); `deferred`: below what a request waits for.
 */
export function lowerProcessPriority(pid: number | undefined, steps = configuredSteps, deferred = false): void {
  if (!pid) return;
  try {
    const nice = target(steps, deferred);
    if (nice !== null) setProcessNice(pid, nice);
  } catch {
    // The child may already have exited, or the platform may refuse: it then runs at normal priority.
  }
}

/**
 * Lowers this whole process: a team's worker does background work only, and where it shares a machine with an
 * API node, the node's reads come first. Linux keeps niceness per thread and a thread inherits its creator's, so
 * every thread the process has now is lowered (those it makes later, and its children, follow); its children then
 * go `steps` further down still, as a serving process's do. Elsewhere the call is process-wide already.
 */
export function lowerOwnPriority(steps = configuredSteps): void {
  try {
    const nice = target(steps);
    if (nice !== null) setProcessNice(process.pid, nice);
  } catch {
    // Not permitted: normal priority.
  }
}

/**
 * Lowers the calling thread's priority: a worker thread calls it first thing. Linux schedules threads by
 * their own niceness, named by the thread id; elsewhere there is no per-thread niceness and this does nothing.
 */
export function lowerThisThreadPriority(steps = configuredSteps): void {
  if (process.platform !== 'linux') return;
  try {
    const nice = target(steps);
    const tid = threadIdFromLink(fs.readlinkSync('/proc/thread-self'));
    if (nice !== null && tid !== null && tid !== process.pid) os.setPriority(tid, nice);
  } catch {
    // No /proc, or not permitted: normal priority.
  }
}
