import { readFileSync } from 'node:fs';

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
