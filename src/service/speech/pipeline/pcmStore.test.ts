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

  it('grows once to a duration learnt after decoding began, keeping what it holds', () => {
    const store = new RetainedPcm(null); // sized for 61 s until the probe answers
    store.append(ramp(0, 20_000));
    const early = store.read(0, 4);
    store.reserve(120);
    store.reserve(10); // smaller than what it has: no change
    store.append(ramp(20_000, 10));
    expect(store.length).toBe(20_010);
    expect(Array.from(store.read(19_998, 20_002))).toEqual([19_998, 19_999, 20_000, 20_001]);
    expect(Array.from(early)).toEqual([0, 1, 2, 3]); // a chunk handed out before still reads the same samples
    for (let b = 0; b < 120; b++) store.append(ramp(0, 16_000));
    expect(store.length).toBe(20_010 + 120 * 16_000);
  });

  it('ignores a duration learnt after it handed the recording over, even to another thread', () => {
    const store = new RetainedPcm(null); // sized for 61 s
    store.append(ramp(0, 16_000));
    const all = store.all();
    // A threaded diarizer transfers the buffer: here it is detached.
    structuredClone(all.buffer, { transfer: [all.buffer] });
    expect(() => store.reserve(3600)).not.toThrow();
    expect(store.length).toBe(16_000);
    expect(() => store.append(ramp(0, 10))).toThrow(/handed over/);
  });

  it('shared: keeps the recording in a SharedArrayBuffer, also after growing, and views read before stay valid', () => {
    const store = new RetainedPcm(0, { shared: true }); // sized for 1 s
    store.append(ramp(0, 10_000));
    const early = store.read(9_998, 10_000);
    expect(early.buffer).toBeInstanceOf(SharedArrayBuffer);
    store.append(ramp(10_000, 20_000)); // past the size hint: a new shared buffer
    store.reserve(60);
    const all = store.all();
    expect(all.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(all.length).toBe(30_000);
    expect(all[29_999]).toBe(29_999);
    expect(Array.from(early)).toEqual([9_998, 9_999]);
    expect(new RetainedPcm(0).all().buffer).toBeInstanceOf(ArrayBuffer);
  });
});
