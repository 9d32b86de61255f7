import { describe, expect, it } from 'vitest';
import { ChunkMerger, splitAtQuietPoints } from './chunks';

function merge(spans: [number, number][], options = {}) {
  const m = new ChunkMerger(options);
  return [...spans.flatMap(([start, end]) => m.push({ start, end })), ...m.finish()];
}

describe('ChunkMerger', () => {
  it('merges spans across short gaps and keeps long gaps apart', () => {
    expect(
      merge(
        [
          [0, 2],
          [2.4, 5],
          [7, 9],
          [9.5, 10],
        ],
        { mergeGapSeconds: 0.6 },
      ),
    ).toEqual([
      // prettier-ignore
      { start: 0, end: 5 },
      { start: 7, end: 10 },
    ]);
  });

  it('never merges past the maximum length', () => {
    expect(
      merge(
        [
          [0, 8],
          [8.2, 15],
          [15.3, 22],
        ],
        { maxChunkSeconds: 16 },
      ),
    ).toEqual([
      // prettier-ignore
      { start: 0, end: 15 },
      { start: 15.3, end: 22 },
    ]);
  });

  it('passes nothing through for no spans', () => {
    expect(merge([])).toEqual([]);
  });
});

describe('splitAtQuietPoints', () => {
  it('leaves short spans alone', () => {
    expect(
      splitAtQuietPoints(new Float32Array(16_000), { start: 3, end: 4 }, { maxChunkSeconds: 2 }),
    ).toEqual([{ start: 3, end: 4 }]);
  });

  it('cuts a long span at its quiet moments, within the maximum', () => {
    // 25 s of loud noise with quiet dips at 7 s and 16 s (100 ms each); span starts at t = 100 s.
    const pcm = new Float32Array(25 * 16_000);
    let seed = 7;
    for (let i = 0; i < pcm.length; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const t = i / 16_000;
      const quiet = Math.abs(t - 7) < 0.05 || Math.abs(t - 16) < 0.05;
      pcm[i] = (seed / 2 ** 31 - 0.5) * (quiet ? 0.001 : 0.5);
    }
    const pieces = splitAtQuietPoints(pcm, { start: 100, end: 125 }, { maxChunkSeconds: 10 });
    expect(pieces).toHaveLength(3);
    expect(pieces[0]!.start).toBe(100);
    expect(pieces[0]!.end).toBeCloseTo(107, 1);
    expect(pieces[1]!.end).toBeCloseTo(116, 1);
    expect(pieces[2]!.end).toBe(125);
    for (const p of pieces) expect(p.end - p.start).toBeLessThanOrEqual(10);
  });

  it('still respects the maximum in audio with no quiet moment', () => {
    const pcm = new Float32Array(45 * 16_000).fill(0.3);
    const pieces = splitAtQuietPoints(pcm, { start: 0, end: 45 }, { maxChunkSeconds: 20 });
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const p of pieces) expect(p.end - p.start).toBeLessThanOrEqual(20);
    expect(pieces.at(-1)!.end).toBe(45);
  });
});
