import { readFileSync } from 'node:fs';
import { childProcesses, readProcStat } from '../../test/helpers/proc-stat';

/** CPU seconds of this process and of its children that have been waited for. */
export function treeCpuSeconds(): number {
  const self = readProcStat('self');
  return self.cpuSeconds + self.childrenCpuSeconds;
}

/** CPU seconds of this process's children that have been waited for. */
export function childrenCpuSeconds(): number {
  return readProcStat('self').childrenCpuSeconds;
}

/** CPU seconds of the calling thread, at nanosecond resolution (/proc/thread-self/schedstat: time on CPU). */
export function threadCpuSeconds(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e9;
}

/**
 * CPU seconds used so far by this process's live children whose name starts with `prefix` (long-lived
 * workers such as the decoder pool, which are not reaped while a bench runs).
 */
export function liveChildrenCpuSeconds(prefix: string): number {
  return childProcesses()
    .filter((child) => child.name.startsWith(prefix))
    .reduce((total, child) => total + child.cpuSeconds, 0);
}
