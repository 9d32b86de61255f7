/**
 * The memory of a process tree, sampled from Linux's /proc: every process under a root (the service and
 * whatever it started: decoders, the analysis process, ffmpeg, training tools), each sample the sum of their
 * proportional set sizes (PSS) at one instant, with the part each kind of process held. PSS counts a page
 * shared by n processes 1/n in each, so the sum is what the tree holds: a sum of RSS counts shared pages once
 * per process, and a child the service has just forked, before it becomes ffmpeg or a decoder, shows the
 * service's whole RSS again (a 60-min run's transcription peak counted 348 MB of it). The RSS sum is kept
 * beside it. Phases (upload, transcription, analysis…) keep their own peak, so a figure says when the memory
 * was needed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../../src/service/proc-stat';

export interface TreeSample {
  /** Milliseconds since sampling started. */
  t: number;
  phase: string;
  /** The tree's PSS (kb). */
  totalKb: number;
  /** The sum of the processes' RSS (kb), which counts shared pages more than once. */
  rssKb?: number;
  /** PSS by kind of process at this instant (kb). */
  byKind: Record<string, number>;
  processes: number;
}

export interface PhasePeak {
  phase: string;
  /** The sample with the largest whole-tree PSS in the phase. */
  peak: TreeSample;
  /** Each kind's own largest PSS in the phase (not necessarily at the tree's peak). */
  kindPeaksKb: Record<string, number>;
  seconds: number;
}

/** Per phase, in the order the phases first appear: the tree's peak and each kind's peak. */
export function phasePeaks(samples: readonly TreeSample[]): PhasePeak[] {
  const out = new Map<string, PhasePeak & { first: number; last: number }>();
  for (const s of samples) {
    let p = out.get(s.phase);
    if (!p) out.set(s.phase, (p = { phase: s.phase, peak: s, kindPeaksKb: {}, seconds: 0, first: s.t, last: s.t }));
    if (s.totalKb > p.peak.totalKb) p.peak = s;
    for (const [kind, kb] of Object.entries(s.byKind)) p.kindPeaksKb[kind] = Math.max(p.kindPeaksKb[kind] ?? 0, kb);
    p.last = s.t;
  }
  return [...out.values()].map(({ first, last, ...p }) => ({ ...p, seconds: (last - first) / 1000 }));
}

/** The whole run's peak sample. */
export function overallPeak(samples: readonly TreeSample[]): TreeSample | null {
  return samples.reduce<TreeSample | null>((best, s) => (!best || s.totalKb > best.totalKb ? s : best), null);
}

/** What a process is, from its name and whether it is the root: the service, the analysis process, a decoder… */
export type Classify = (proc: { pid: number; name: string; cmdline: string; isRoot: boolean }) => string;

/** A process's proportional set size (kb), or null where the kernel does not give it. */
function pssKb(pid: number): number | null {
  try {
    const match = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Every descendant of `root` (and root itself) now, with name, command line, RSS and PSS (kb; RSS where no PSS). */
export function readTree(root: number): Array<{ pid: number; name: string; cmdline: string; rssKb: number; pssKb: number }> {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parent.set(Number(entry), readProcStat(Number(entry)).ppid);
    } catch {
      // ended between listing and reading
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  const out: Array<{ pid: number; name: string; cmdline: string; rssKb: number; pssKb: number }> = [];
  for (const pid of tree) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const name = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?';
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        // gone
      }
      out.push({ pid, name, cmdline, rssKb, pssKb: pssKb(pid) ?? rssKb });
    } catch {
      // ended between listing and reading
    }
  }
  return out;
}

/** Samples the tree under `root` every `ms`, tagging each sample with the phase current then. */
export class TreeSampler {
  readonly samples: TreeSample[] = [];
  phase = 'start';
  private timer: NodeJS.Timeout | null = null;
  private started = 0;

  constructor(
    private readonly root: number,
    private readonly classify: Classify,
  ) {}

  start(ms = 200): void {
    this.started = Date.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), ms);
  }

  /** Enters a phase (sampled at once, so a short phase has at least one sample). */
  enter(phase: string): void {
    this.phase = phase;
    this.sample();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The latest sample. */
  now(): TreeSample | undefined {
    return this.samples.at(-1);
  }

  private sample(): void {
    const procs = readTree(this.root);
    const byKind: Record<string, number> = {};
    let totalKb = 0;
    let rssKb = 0;
    for (const p of procs) {
      const kind = this.classify({ ...p, isRoot: p.pid === this.root });
      byKind[kind] = (byKind[kind] ?? 0) + p.pssKb;
      totalKb += p.pssKb;
      rssKb += p.rssKb;
    }
    this.samples.push({ t: Date.now() - this.started, phase: this.phase, totalKb, rssKb, byKind, processes: procs.length });
  }
}
