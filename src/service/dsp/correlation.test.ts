import { describe, expect, it } from 'vitest';
import { createAutocorrelation, createCrossCorrelation } from './correlation';

const signal = Float64Array.from({ length: 300 }, (_, i) => Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.9) + ((i * 7919) % 13) / 13 - 0.5);

function direct(x: ArrayLike<number>, xLength: number, y: ArrayLike<number>, yLength: number, lag: number): number {
  let s = 0;
  for (let j = 0; j < xLength && lag + j < yLength; j++) s += x[j]! * y[lag + j]!;
  return s;
}

describe('createAutocorrelation', () => {
  it('matches the direct sum on every lag when padded to twice the frame', () => {
    const out = new Float64Array(257);
    createAutocorrelation(512)(signal, 256, out);
    for (const lag of [0, 1, 2, 50, 128, 255]) expect(out[lag]).toBeCloseTo(direct(signal, 256, signal, 256, lag), 9);
  });

  it('matches it up to size − length with less padding (the rest wraps around)', () => {
    const out = new Float64Array(257);
    createAutocorrelation(512)(signal, 300, out);
    for (const lag of [0, 100, 212]) expect(out[lag]).toBeCloseTo(direct(signal, 300, signal, 300, lag), 9);
  });

  it('rejects frames longer than the FFT', () => {
    expect(() => createAutocorrelation(256)(signal, 300, new Float64Array(129))).toThrow(/longer/);
    expect(() => createAutocorrelation(300)).toThrow(/power of two/);
  });
});

describe('createCrossCorrelation', () => {
  it('matches the direct forward cross-correlation', () => {
    const out = new Float64Array(151);
    createCrossCorrelation(512)(signal, 150, signal, 300, 150, out);
    for (const lag of [0, 1, 33, 99, 150]) expect(out[lag]).toBeCloseTo(direct(signal, 150, signal, 300, lag), 9);
  });

  it('refuses inputs that would wrap around', () => {
    expect(() => createCrossCorrelation(256)(signal, 150, signal, 300, 10, new Float64Array(11))).toThrow(/does not fit/);
  });
});
