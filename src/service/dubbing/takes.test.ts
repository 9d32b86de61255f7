import { describe, expect, it } from 'vitest';
import { takeFits, takeVariants } from './takes';
import { inParallel } from './parallel';
import type { PlannedLine } from '../storage/dub-store';

describe('takeVariants', () => {
  it('tries every voice at each speed in turn, distinct pairs only', () => {
    expect(takeVariants(3, ['a', 'b'], [null, 1.1])).toEqual([
      { voice: 'a', speed: null },
      { voice: 'b', speed: null },
      { voice: 'a', speed: 1.1 },
    ]);
    expect(takeVariants(5, ['a'], [1, 1, 0.9])).toEqual([
      { voice: 'a', speed: 1 },
      { voice: 'a', speed: 0.9 },
    ]);
  });
});

describe('takeFits', () => {
  const plan: PlannedLine = { lineId: 1, speaker: 'S1', text: 'Hi.', voice: 'a', start: 1, end: 2, originalStart: 1, originalEnd: 2, nextStart: 3, previousEnd: 0.5, speed: null };
  it('holds while the line and the room around it are as rendered, whatever its voice and speed now', () => {
    expect(takeFits({ plan }, { ...plan, voice: 'b', speed: 1.2 })).toBe(true);
    expect(takeFits({ plan }, { ...plan, text: 'Hello.' })).toBe(false);
    expect(takeFits({ plan }, { ...plan, end: 2.1 })).toBe(false);
    expect(takeFits({ plan }, { ...plan, nextStart: 2.5 })).toBe(false);
  });
});

describe('inParallel', () => {
  it('runs at most `limit` at once, every item once, and reports the first failure after the running ones settle', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await inParallel([5, 1, 3, 2, 4], 2, async (ms, i) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, ms * 3));
      seen.push(i);
      running--;
    });
    expect(most).toBe(2);
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4]);

    const settled: number[] = [];
    await expect(
      inParallel([1, 2, 3, 4], 2, async (x) => {
        await new Promise((r) => setTimeout(r, x === 2 ? 20 : 1));
        if (x === 1) throw new Error('one failed');
        settled.push(x);
      }),
    ).rejects.toThrow('one failed');
    // The one running when the failure came finished; nothing new started.
    expect(settled).toEqual([2]);
  });
});
