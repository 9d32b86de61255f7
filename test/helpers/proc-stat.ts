import { readdirSync } from 'node:fs';
import { readProcStat, type ProcStat } from '../../src/service/proc-stat';

export { readProcStat, type ProcStat };

/** The live (or not yet reaped) children of `parent`. */
export function childProcesses(parent: number = process.pid): ProcStat[] {
  const children: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readProcStat(Number(entry));
      if (stat.ppid === parent) children.push(stat);
    } catch {
      // ended between listing and reading
    }
  }
  return children;
}
