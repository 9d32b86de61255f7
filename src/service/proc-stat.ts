import { readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat (stat(5)) that the decoders' watchdog, tests and benchmarks read. */
export interface ProcStat {
  pid: number;
  /** Command name, truncated by Linux to 15 characters. */
  name: string;
  /** R, S, D, Z, … */
  state: string;
  ppid: number;
  /** utime + stime, seconds. */
  cpuSeconds: number;
  /** cutime + cstime (children that have been waited for), seconds. */
  childrenCpuSeconds: number;
}

const USER_HZ = 100;

/** One process's stat, or one of its threads' (`thread`: its id); throws if it has ended. */
export function readProcStat(pid: number | 'self', thread?: number): ProcStat {
  const text = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  // The name may hold spaces and parentheses, so the fields are counted from its last ")": stat(5)'s
  // third field (state) is the first here, so its 14–17 (utime, stime, cutime, cstime) are 11–14.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const seconds = (i: number) => Number(fields[i]) / USER_HZ;
  return {
    pid: Number(text.slice(0, text.indexOf(' '))),
    name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
    state: fields[0]!,
    ppid: Number(fields[1]),
    cpuSeconds: seconds(11) + seconds(12),
    childrenCpuSeconds: seconds(13) + seconds(14),
  };
}
