import { childProcesses, readProcStat } from '../../test/helpers/proc-stat';

/**
 * CPU seconds (user + system) of a live process and all its descendants: its own, those of its children it has
 * waited for, and each live descendant's likewise (a worker's PocketSphinx decoders, ffmpeg, the analysis
 * process). 0 once the process has ended.
 */
export function processTreeCpuSeconds(pid: number): number {
  let stat;
  try {
    stat = readProcStat(pid);
  } catch {
    return 0;
  }
  return stat.cpuSeconds + stat.childrenCpuSeconds + childProcesses(pid).reduce((sum, child) => sum + processTreeCpuSeconds(child.pid), 0);
}
