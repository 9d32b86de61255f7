import { describe, expect, it } from 'vitest';
import { plannedLine, takeFits, takeVariants, unusableTakes } from './takes';
import { inParallel } from './parallel';
import type { PlannedLine, TakeRecord } from '../storage/dub-store';
import { dubLine } from '../../../test/helpers/dub-lines';

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

describe('unusableTakes', () => {
  const lines = [dubLine(1, 0, 1, 'Line one.'), dubLine(2, 2, 3, 'Line two.'), dubLine(3, 4, 5, 'Line three.')];
  const take = (lineId: number, number: number, jobId: string, on = lines): TakeRecord => ({
    id: `${lineId}-${number}`,
    dubId: 'd',
    lineId,
    number,
    jobId,
    voice: 'a',
    speed: null,
    source: 'synthesized',
    status: 'ready',
    error: null,
    plan: plannedLine(on, on.findIndex((l) => l.id === lineId), 'a', null, 10),
    render: null,
    baseRevision: 1,
    createdAt: '',
    finishedAt: null,
  });
  const ids = (takes: TakeRecord[]) => takes.map((t) => t.id);

  it("keeps each line's latest request while it fits, and nothing else", () => {
    const takes = [take(1, 1, 'j1'), take(1, 2, 'j1'), take(1, 3, 'j2'), take(2, 1, 'j3')];
    expect(ids(unusableTakes(takes, lines, 10))).toEqual(['1-1', '1-2']);
    // Line 2's text changed: its takes go; line 1 keeps its latest.
    const changed = [lines[0]!, { ...lines[1]!, text: 'Other.' }, lines[2]!];
    expect(ids(unusableTakes(takes, changed, 10))).toEqual(['1-1', '1-2', '2-1']);
    // Line 3 starting later moves line 2's room; a merged-away line 2 takes its takes along.
    expect(ids(unusableTakes([take(2, 1, 'j3')], [lines[0]!, lines[1]!, { ...lines[2]!, start: 4.5 }], 10))).toEqual(['2-1']);
    expect(ids(unusableTakes([take(2, 1, 'j3')], [lines[0]!, lines[2]!], 10))).toEqual(['2-1']);
    // A voice or speed of the line's own changes nothing.
    expect(unusableTakes([take(2, 1, 'j3')], [lines[0]!, { ...lines[1]!, voice: 'b', speed: 1.1 }, lines[2]!], 10)).toEqual([]);
  });

  it('keeps recorded takes beside the synthesized ones while they fit: neither replaces the other', () => {
    const recorded = (lineId: number, number: number) => ({ ...take(lineId, number, `rec-${number}`), source: 'recorded' as const });
    // A recording after synthesized takes leaves them; synthesized takes after a recording leave it.
    expect(ids(unusableTakes([take(1, 1, 'j1'), recorded(1, 2)], lines, 10))).toEqual([]);
    expect(ids(unusableTakes([recorded(1, 1), take(1, 2, 'j1'), take(1, 3, 'j2')], lines, 10))).toEqual(['1-2']);
    // A change of the line's timing removes a recording too.
    expect(ids(unusableTakes([recorded(1, 1)], [{ ...lines[0]!, end: 1.5 }, lines[1]!, lines[2]!], 10))).toEqual(['1-1']);
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
