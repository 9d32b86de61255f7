import { describe, expect, it } from 'vitest';
import { createFeatureMatrix } from '../../dsp/features';
import { gmmLogLikelihood, gmmScoreFrames, trainGmm } from './gmm';
import { rng } from './synthetic.testutil';

/** Frames alternating between two well-separated unit-variance blobs (means ±3 in every dimension). */
function twoBlobs(n: number, dim: number, seed: number) {
  const r = rng(seed);
  const m = createFeatureMatrix(n, dim);
  for (let i = 0; i < n; i++)
    for (let d = 0; d < dim; d++) {
      const u = Math.max(r(), 1e-12);
      m.data[i * dim + d] = (i % 2 ? 3 : -3) + Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
    }
  return m;
}

describe('trainGmm', () => {
  it('finds two separated blobs: component means near ±3, weights near ½', () => {
    const m = twoBlobs(4000, 3, 7);
    const g = trainGmm(m, [...Array(4000).keys()], { components: 2 });
    const firstDims = [g.means[0]!, g.means[3]!].sort((a, b) => a - b);
    expect(firstDims[0]).toBeCloseTo(-3, 0);
    expect(firstDims[1]).toBeCloseTo(3, 0);
    expect(Math.exp(g.logWeights[0]!)).toBeCloseTo(0.5, 1);
    for (const v of g.variances) expect(v).toBeGreaterThan(0.7);
  });
});

describe('gmm scoring', () => {
  it('equals the mixture density written out by hand', () => {
    const m = twoBlobs(200, 2, 3);
    const g = trainGmm(m, [...Array(200).keys()], { components: 2 });
    const frame = 5;
    let p = 0;
    for (let c = 0; c < g.k; c++) {
      let logN = 0;
      for (let d = 0; d < g.dim; d++) {
        const v = g.variances[c * g.dim + d]!;
        const diff = m.data[frame * g.dim + d]! - g.means[c * g.dim + d]!;
        logN += -0.5 * Math.log(2 * Math.PI * v) - (diff * diff) / (2 * v);
      }
      p += Math.exp(g.logWeights[c]! + logN);
    }
    expect(gmmLogLikelihood(g, m, frame)).toBeCloseTo(Math.log(p), 10);
  });

  it('scores a range into strided columns, frame by frame the same as one at a time', () => {
    const m = twoBlobs(50, 4, 11);
    const g = trainGmm(m, [...Array(50).keys()], { components: 3 });
    const out = new Float64Array(30 * 2).fill(Number.NaN);
    gmmScoreFrames(g, m, 10, 40, out, 2, 1);
    for (let t = 0; t < 30; t++) {
      expect(out[t * 2 + 1]).toBe(gmmLogLikelihood(g, m, 10 + t));
      expect(out[t * 2]).toBeNaN(); // the other column is left alone
    }
  });
});
