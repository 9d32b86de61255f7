import { describe, expect, it } from 'vitest';
import { secondSpeakers, windowMeans } from './overlap';

describe('windowMeans', () => {
  it('averages each column over a centred window without crossing runs', () => {
    // Two columns, four frames, runs [0, 2) and [2, 4).
    const scores = Float64Array.from([1, 10, 3, 30, 5, 50, 7, 70]);
    const means = windowMeans(scores, 2, [{ from: 0, to: 2 }, { from: 2, to: 4 }], 3);
    expect([...means]).toEqual([2, 20, 2, 20, 6, 60, 6, 60]);
  });
});

describe('secondSpeakers', () => {
  const runs = [{ from: 0, to: 10 }];

  it('adds the other speaker where its model scores as well as on its own speech', () => {
    // Frames 0–4 are speaker 0, 5–9 speaker 1. Speaker 1's own frames score −10; on frames 2–4 its model
    // scores −10 too (as typical as its own speech), elsewhere −30.
    const labels = Int32Array.from([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    const means = new Float64Array(20);
    for (let f = 0; f < 10; f++) {
      means[f * 2] = f < 5 ? -10 : -30;
      means[f * 2 + 1] = f >= 5 || (f >= 2 && f <= 4) ? -10 : -30;
    }
    expect([...secondSpeakers(means, labels, 2, runs, 0.5, 2)]).toEqual([-1, -1, 1, 1, 1, -1, -1, -1, -1, -1]);
  });

  it('drops stretches shorter than minFrames and does nothing with one speaker', () => {
    const labels = Int32Array.from([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    const means = new Float64Array(20);
    for (let f = 0; f < 10; f++) {
      means[f * 2] = f < 5 ? -10 : -30;
      means[f * 2 + 1] = f >= 5 || f === 3 ? -10 : -30;
    }
    expect([...secondSpeakers(means, labels, 2, runs, 0.5, 2)].every((x) => x === -1)).toBe(true);
    expect([...secondSpeakers(new Float64Array(10), new Int32Array(10), 1, runs, 0.5, 1)].every((x) => x === -1)).toBe(true);
  });
});
