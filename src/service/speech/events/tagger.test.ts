import { describe, expect, it } from 'vitest';
import {
  chunkPlan,
  classIndices,
  maxScore,
  meanScores,
  patchCell,
  patchCount,
  patchesOwning,
  type TagFrames,
} from './tagger';

const W = 15_600;
const H = 7_680;

describe('patchCount', () => {
  it('follows YAMNet’s padding: one patch up to a window, then one more per started hop', () => {
    expect(patchCount(0, W, H)).toBe(1);
    expect(patchCount(W, W, H)).toBe(1);
    expect(patchCount(W + 1, W, H)).toBe(2);
    expect(patchCount(W + H, W, H)).toBe(2);
    expect(patchCount(W + H + 1, W, H)).toBe(3);
  });
});

describe('chunkPlan', () => {
  it('covers every patch once, on the hop grid, and each chunk holds the samples its patches need', () => {
    for (const samples of [0, 100, W, W + 1, 16_000 * 61, 16_000 * 61 + 4_321]) {
      for (const per of [1, 2, 7, 125]) {
        const chunks = chunkPlan(samples, W, H, per);
        const total = patchCount(samples, W, H);
        expect(chunks.reduce((s, c) => s + c.patches, 0)).toBe(total);
        let next = 0;
        for (const c of chunks) {
          expect(c.firstPatch).toBe(next);
          next += c.patches;
          expect(c.startSample).toBe(c.firstPatch * H);
          // The model pads a chunk exactly as it pads the whole input: same patch count from these samples.
          expect(patchCount(c.endSample - c.startSample, W, H)).toBe(c.patches);
          expect(c.endSample).toBeLessThanOrEqual(Math.max(samples, 0));
        }
      }
    }
  });

  it('refuses a chunk size below one patch', () => {
    expect(() => chunkPlan(1000, W, H, 0)).toThrow(/patchesPerChunk/);
  });
});

const tags: TagFrames = {
  hop: 0.48,
  window: 0.975,
  labels: ['a', 'b', 'c'],
  patches: 4,
  scores: Float32Array.from([0.1, 0.9, 0, 0.2, 0.3, 0.5, 0.3, 0.0, 0.1, 0.4, 0.6, 0.2]),
};

describe('scores', () => {
  it('finds class columns by name and refuses unknown ones', () => {
    expect(classIndices(tags.labels, ['c', 'a'])).toEqual([2, 0]);
    expect(() => classIndices(tags.labels, ['nope'])).toThrow(/no class "nope"/);
  });

  it('takes the largest score of a class group per patch', () => {
    expect(Array.from(maxScore(tags, [0, 2]))).toEqual([0.1, 0.5, 0.3, 0.4].map(Math.fround));
  });

  it('gives each patch the hop around its centre, tiling the timeline', () => {
    const c0 = patchCell(tags, 0);
    const c1 = patchCell(tags, 1);
    expect(c0.start).toBeCloseTo(0.2475);
    expect(c0.end).toBeCloseTo(c1.start);
    expect(c1.end - c1.start).toBeCloseTo(0.48);
  });

  it('averages the patches whose cells overlap a span', () => {
    expect(patchesOwning(tags, { start: 0.8, end: 1.3 })).toEqual([1, 2]);
    // Shorter than a cell: the patch holding its middle.
    expect(patchesOwning(tags, { start: 0.3, end: 0.35 })).toEqual([0, 0]);
    const mean = meanScores(tags, { start: 0.8, end: 1.3 });
    expect(mean[0]).toBeCloseTo(0.25);
    expect(mean[2]).toBeCloseTo(0.3);
  });
});
