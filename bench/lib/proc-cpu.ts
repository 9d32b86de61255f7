import { readdirSync, readFileSync } from 'node:fs';

/** utime, stime, cutime, cstime of this process in seconds (/proc/self/stat, fields 14–17 of stat(5)). */
function selfStat(): [number, number, number, number] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // After the command name the fields start at stat(5)'s third, so 14–17 are 11–14 here.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].map((i) => Number(fields[i]) / 100) as [number, number, number, number]; // USER_HZ 100
}

/** CPU seconds of this process and of its children that have been waited for. */
export function treeCpuSeconds(): number {
  return selfStat().reduce((a, b) => a + b, 0);
}

/** CPU seconds of this process's children that have been waited for. */
export function childrenCpuSeconds(): number {
  const [, , cutime, cstime] = selfStat();
  return cutime + cstime;
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
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || !name.startsWith(prefix)) continue;
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // ended between listing and reading
    }
  }
  return total;
}
