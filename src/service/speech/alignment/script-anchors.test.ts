import { describe, expect, it } from 'vitest';
import { alignTokens, anchorRuns, planStretches } from './script-anchors';

const words = (s: string) => s.split(' ');

describe('alignTokens', () => {
  it('matches equal tokens in order (longest common subsequence)', () => {
    const a = words('the quick brown fox jumps over the lazy dog');
    const b = words('a quick brown box jumps over lazy dog today');
    const pairs = alignTokens(a, b);
    expect(pairs.map(([i]) => a[i])).toEqual(words('quick brown jumps over lazy dog'));
    for (const [i, j] of pairs) expect(a[i]).toBe(b[j]);
  });

  it('splits very long inputs at unique shared words and still finds the common words', () => {
    // 3000 × 3000 tokens is over the table limit: the unique numbered words anchor the pieces.
    const a: string[] = [];
    const b: string[] = [];
    for (let k = 0; k < 1000; k++) {
      a.push(`w${k}`, 'the', 'and');
      b.push(`w${k}`, k % 10 === 0 ? 'a' : 'the', 'and');
    }
    const pairs = alignTokens(a, b);
    expect(pairs.length).toBe(3000 - 100);
    for (let k = 1; k < pairs.length; k++) {
      expect(pairs[k]![0]).toBeGreaterThan(pairs[k - 1]![0]);
      expect(pairs[k]![1]).toBeGreaterThan(pairs[k - 1]![1]);
    }
  });

  it('matches nothing when nothing is shared', () => {
    expect(alignTokens(words('a b c'), words('d e'))).toEqual([]);
    expect(alignTokens([], words('d e'))).toEqual([]);
  });
});

describe('anchorRuns', () => {
  it('keeps runs of consecutive matches at least minRun long', () => {
    const pairs: Array<[number, number]> = [[0, 0], [1, 1], [3, 2], [4, 3], [5, 4], [7, 7], [8, 8], [9, 9], [10, 10]];
    expect(anchorRuns(pairs, 3)).toEqual([
      { script: 3, recognized: 2, length: 3 },
      { script: 7, recognized: 7, length: 4 },
    ]);
  });
});

describe('planStretches', () => {
  // One recognised word a second (0.8 s long, 0.2 s apart), all matching the script one to one.
  const rec = Array.from({ length: 100 }, (_, k) => ({ start: k, end: k + 0.8 }));
  it('covers every word and the whole recording with stretches no longer than max where anchors allow', () => {
    const stretches = planStretches([{ script: 0, recognized: 0, length: 100 }], rec, 100, 100.5, { min: 8, max: 30 });
    expect(stretches[0]).toMatchObject({ from: 0, start: 0 });
    expect(stretches.at(-1)).toMatchObject({ to: 100, end: 100.5 });
    for (let k = 1; k < stretches.length; k++) {
      expect(stretches[k]!.from).toBe(stretches[k - 1]!.to);
      expect(stretches[k]!.start).toBe(stretches[k - 1]!.end);
    }
    for (const s of stretches) expect(s.end - s.start).toBeLessThanOrEqual(30);
    // Cuts fall between two words, in the pause.
    for (const s of stretches.slice(1)) expect(s.start).toBeCloseTo(s.from - 1 + 0.9, 6);
  });

  it('prefers the longest pause in the window', () => {
    const gappy = rec.map((r, k) => (k >= 20 ? { start: r.start + 2, end: r.end + 2 } : r));
    const stretches = planStretches([{ script: 0, recognized: 0, length: 100 }], gappy, 100, 103, { min: 8, max: 30 });
    expect(stretches[0]!.to).toBe(20);
    expect(stretches[0]!.end).toBeCloseTo(19.8 + 1.2 / 2 - 0.0 + 0.5, 6);
  });

  it('runs one stretch past max where no anchor offers a cut, and one stretch for a short recording', () => {
    const stretches = planStretches([{ script: 0, recognized: 0, length: 3 }, { script: 60, recognized: 60, length: 3 }], rec, 100, 100, { min: 8, max: 30 });
    expect(stretches.map((s) => [s.from, s.to])).toEqual([[0, 61], [61, 100]]);
    expect(planStretches([], rec, 100, 20)).toEqual([{ from: 0, to: 100, start: 0, end: 20 }]);
  });
});
