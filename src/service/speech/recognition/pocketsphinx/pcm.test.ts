import { describe, expect, it } from 'vitest';
import { float32ToInt16Le, splitPoints } from './pcm';

describe('float32ToInt16Le', () => {
  it('scales and clips', () => {
    const b = float32ToInt16Le(Float32Array.from([0, 0.5, -1, 2, -3]));
    expect([0, 1, 2, 3, 4].map((i) => b.readInt16LE(i * 2))).toEqual([0, 16384, -32767, 32767, -32767]);
  });
});

describe('splitPoints', () => {
  it('leaves short audio whole', () => {
    expect(splitPoints(new Float32Array(1000), 1000)).toEqual([]);
  });

  it('cuts long audio at the quiet frame in the last third of each window', () => {
    const pcm = new Float32Array(10_000).fill(0.5);
    pcm.fill(0, 2700, 3050); // a pause near the end of the first 3200-sample window
    const cuts = splitPoints(pcm, 3200);
    expect(cuts[0]).toBeGreaterThan(2700);
    expect(cuts[0]).toBeLessThan(3050);
    let prev = 0;
    for (const c of [...cuts, pcm.length]) {
      expect(c - prev).toBeLessThanOrEqual(3200);
      prev = c;
    }
  });
});
