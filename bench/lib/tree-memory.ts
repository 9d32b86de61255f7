import { readdirSync, readFileSync } from 'node:fs';

/** RSS sampling over this process and its descendants (Linux /proc). */
export class TreeMemory {
  peakTreeKb = 0;
  readonly childHwmKb = new Map<number, { name: string; kb: number }>();
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
    const parent = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // the process ended between listing and reading
      }
    }
    const tree = [this.root];
    for (let i = 0; i < tree.length; i++)
      for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
    let total = 0;
    for (const pid of tree) {
      const status = readStatus(pid);
      if (!status) continue;
      total += status.rss;
      if (pid !== this.root) this.childHwmKb.set(pid, { name: status.name, kb: status.hwm });
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
