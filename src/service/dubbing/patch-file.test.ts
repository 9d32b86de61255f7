import { describe, expect, it } from 'vitest';
import { decodePatch, encodePatch } from './patch-file';

describe('line patches', () => {
  it('round-trip exactly', () => {
    const samples = Float32Array.from({ length: 2 * 4801 }, (_, i) => Math.sin(i / 7) * 0.3);
    const bytes = encodePatch({ fadeIn: 960, fadeOut: 480, channels: 2, samples });
    expect(bytes.length).toBe(16 + samples.length * 4);
    expect(decodePatch(bytes, 'line-3.patch')).toEqual({ fadeIn: 960, fadeOut: 480, channels: 2, samples });
  });

  it('refuses bytes that are not a whole patch', () => {
    expect(() => decodePatch(Buffer.alloc(17), 'bad.patch')).toThrow(/bad.patch is not a line patch/);
    const whole = encodePatch({ fadeIn: 0, fadeOut: 0, channels: 1, samples: new Float32Array(4) });
    expect(() => decodePatch(whole.subarray(0, whole.length - 2), 'cut.patch')).toThrow(/not a line patch/);
  });
});
