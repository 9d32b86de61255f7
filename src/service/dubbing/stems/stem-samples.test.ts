import { describe, expect, it } from 'vitest';
import { floatsToUnits, readUnits, stemUnits, writeUnits } from './stem-samples';

describe('stem samples', () => {
  it('background plus the owning speaker is the mix, in integer units; other speakers are silent', () => {
    const mix = Float64Array.from([100, -200, 32767, -32768, 5, 6]);
    const background = floatsToUnits(Float32Array.from([0.5, -0.5, -1, 0.25, 0.1, 0.1]), 's16');
    const owner = Int32Array.from([-1, 0, 1]); // two channels a frame
    const bg = stemUnits({ kind: 'background' }, mix, background, owner, 2);
    const s0 = stemUnits({ kind: 'speaker', index: 0 }, mix, background, owner, 2);
    const s1 = stemUnits({ kind: 'speaker', index: 1 }, mix, background, owner, 2);
    expect([...bg]).toEqual([100, -200, -32768, 8192, 3277, 3277]);
    expect([...s0]).toEqual([0, 0, 65535, -40960, 0, 0]);
    for (let i = 0; i < mix.length; i++) expect(bg[i]! + s0[i]! + s1[i]!).toBe(mix[i]);
    // Written back, a difference outside the format's range is clipped.
    expect([...readUnits(writeUnits(s0, 's16'), 's16')]).toEqual([0, 0, 32767, -32768, 0, 0]);
  });

  it('reads and writes every format without change', () => {
    for (const format of ['s16', 's24', 's32'] as const) {
      const units = Float64Array.from([0, 1, -1, 1234, -5678]);
      expect([...readUnits(writeUnits(units, format), format)]).toEqual([...units]);
    }
    const floats = Float64Array.from([0, 0.5, -0.25]);
    expect([...readUnits(writeUnits(floats, 'f32'), 'f32')]).toEqual([0, 0.5, -0.25]);
  });
});
