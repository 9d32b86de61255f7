import { readdirSync, readFileSync } from 'node:fs';
import { threadCpuSeconds } from './proc-cpu';
import { readProcStat } from '../../src/service/proc-stat';

/**
 * RSS sampling over this process and its descendants (Linux /proc), and the CPU seconds each descendant
 * and each of this process's threads had used at the last sample (for a split by stage: a child that
 * ends loses at most one interval).
 */
export class TreeMemory {
  peakTreeKb = 0;
  readonly childHwmKb = new Map<number, { name: string; kb: number }>();
  /** utime + stime of every descendant seen, at its last sample. */
  readonly childCpu = new Map<number, { name: string; seconds: number }>();
  /** utime + stime of each thread of the root process (tid → seconds), at the last sample. */
  readonly threadCpu = new Map<number, number>();
  /** CPU the sampling itself took (reading /proc on a busy machine is not free): benches subtract it. */
  ownCpuSeconds = 0;
  private timer: NodeJS.Timeout | null = null;
  private root = process.pid;

  /** Samples every `ms` (and at once); `root` is the process whose tree is summed (default this one). */
  start(ms = 100, root = process.pid): void {
    this.root = root;
    this.sample();
    this.timer = setInterval(() => this.sample(), ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const t0 = threadCpuSeconds();
    this.walk();
    this.ownCpuSeconds += threadCpuSeconds() - t0;
  }

  private walk(): void {
    const parent = new Map<number, number>();
    const cpu = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readProcStat(Number(entry));
        parent.set(stat.pid, stat.ppid);
        cpu.set(stat.pid, stat.cpuSeconds);
      } catch {
        // the process ended between listing and reading
      }
    }
    try {
      for (const tid of readdirSync(`/proc/${this.root}/task`)) {
        this.threadCpu.set(Number(tid), readProcStat(this.root, Number(tid)).cpuSeconds);
      }
    } catch {
      // a thread ended between listing and reading
    }
    const tree = [this.root];
    for (let i = 0; i < tree.length; i++)
      for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
    let total = 0;
    for (const pid of tree) {
      const status = readStatus(pid);
      if (!status) continue;
      total += status.rss;
      if (pid !== this.root) {
        this.childHwmKb.set(pid, { name: status.name, kb: status.hwm });
        this.childCpu.set(pid, { name: status.name, seconds: cpu.get(pid) ?? 0 });
      }
    }
    this.peakTreeKb = Math.max(this.peakTreeKb, total);
  }
}

function readStatus(pid: number): { name: string; rss: number; hwm: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { name: /^Name:\s+(.*)$/m.exec(text)?.[1] ?? '?', rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return null;
  }
}
