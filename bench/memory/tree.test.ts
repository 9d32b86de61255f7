import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { overallPeak, phasePeaks, readTree, type TreeSample } from './tree';

const s = (t: number, phase: string, byKind: Record<string, number>): TreeSample => ({
  t,
  phase,
  byKind,
  totalKb: Object.values(byKind).reduce((a, b) => a + b, 0),
  processes: Object.keys(byKind).length,
});

describe('phasePeaks', () => {
  it("keeps each phase's tree peak (a sum at one instant) and each kind's own peak, in order", () => {
    const samples = [
      s(0, 'upload', { service: 100 }),
      s(200, 'transcription', { service: 300, decoders: 200 }),
      s(400, 'transcription', { service: 350, decoders: 100 }),
      s(600, 'analysis', { service: 200, decoders: 200, analysis: 400 }),
      s(800, 'analysis', { service: 250, analysis: 600 }),
    ];
    const peaks = phasePeaks(samples);
    expect(peaks.map((p) => [p.phase, p.peak.totalKb, p.seconds])).toEqual([
      ['upload', 100, 0],
      ['transcription', 500, 0.2],
      ['analysis', 850, 0.2],
    ]);
    // The kinds' peaks need not fall together: 350 + 200 > the tree's 500.
    expect(peaks[1]!.kindPeaksKb).toEqual({ service: 350, decoders: 200 });
    expect(peaks[2]!.peak.byKind).toEqual({ service: 250, analysis: 600 });
    expect(overallPeak(samples)!.t).toBe(800);
  });
});

describe('readTree', () => {
  it('finds a child process and its own child with their memory', async () => {
    const child = spawn('sh', ['-c', 'sleep 5 & wait'], { stdio: 'ignore' });
    try {
      let tree: ReturnType<typeof readTree> = [];
      for (let i = 0; i < 100 && !tree.some((p) => p.name === 'sleep'); i++) {
        await new Promise((r) => setTimeout(r, 20));
        tree = readTree(process.pid);
      }
      expect(tree[0]!.pid).toBe(process.pid);
      expect(tree.some((p) => p.pid === child.pid && p.name === 'sh')).toBe(true);
      expect(tree.find((p) => p.name === 'sleep')!.rssKb).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('counts pages a fork shares with its parent once (PSS), where a sum of RSS counts them twice', async () => {
    // Perl (Debian's perl-base is always there) fills 200 MB, then forks: both processes map the same pages.
    const child = spawn('perl', ['-e', 'my $b = "x" x (200 * 1024 * 1024); fork; sleep 5;'], { stdio: 'ignore' });
    try {
      let tree: ReturnType<typeof readTree> = [];
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 25));
        tree = readTree(child.pid!);
        if (tree.length === 2 && tree.every((p) => p.rssKb > 150_000)) break;
      }
      expect(tree.length).toBe(2);
      const sum = (key: 'rssKb' | 'pssKb') => tree.reduce((a, p) => a + p[key], 0);
      // (Perl may hold the string twice, a temporary and the variable: what matters is the ratio.)
      const largest = Math.max(...tree.map((p) => p.rssKb));
      expect(sum('rssKb')).toBeGreaterThan(1.9 * largest);
      expect(sum('pssKb')).toBeGreaterThan(0.95 * largest);
      expect(sum('pssKb')).toBeLessThan(1.1 * largest);
    } finally {
      for (const p of readTree(child.pid!)) process.kill(p.pid, 'SIGKILL');
    }
  });
});
