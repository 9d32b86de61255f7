import { describe, expect, it } from 'vitest';
import { RetainedPcm, WindowedPcm } from './pcmStore';

const ramp = (from: number, n: number) => Float32Array.from({ length: n }, (_, i) => from + i);

describe('WindowedPcm', () => {
  it('reads across blocks and lets go of released ones', () => {
    const store = new WindowedPcm();
    for (let b = 0; b < 5; b++) store.append(ramp(b * 10, 10));
    expect(Array.from(store.read(8, 13))).toEqual([8, 9, 10, 11, 12]);
    store.release(25); // blocks [0,10) and [10,20) are wholly before 25
    expect(store.held).toBe(30);
    expect(Array.from(store.read(25, 32))).toEqual([25, 26, 27, 28, 29, 30, 31]);
    expect(store.length).toBe(50);
  });
});

describe('RetainedPcm', () => {
  it('keeps everything, growing past a wrong size hint, and reads as views', () => {
    const store = new RetainedPcm(0); // sized for 1 s
    for (let b = 0; b < 3; b++) store.append(ramp(b * 10_000, 10_000));
    expect(store.length).toBe(30_000);
    expect(store.all()[29_999]).toBe(29_999);
    expect(Array.from(store.read(15_998, 16_002))).toEqual([15_998, 15_999, 16_000, 16_001]);
  });
});
