import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { meanShift, readGaussianFile, sameShape, writeGaussianFile, type GaussianFile } from './gaussian-file';
import { DEFAULT_MODEL_DIR } from './model';

/** 2 codebooks × 2 densities, streams of 2 and 1 values: 12 values, numbered so each one's place is known. */
function small(values?: number[]): GaussianFile {
  return { codebooks: 2, streams: 2, densities: 2, vectorLengths: [2, 1], values: Float32Array.from(values ?? Array.from({ length: 12 }, (_, i) => i)) };
}

describe('readGaussianFile', () => {
  it('reads back what it writes: dimensions and values in order', () => {
    const g = small();
    const back = readGaussianFile(writeGaussianFile(g));
    expect(back).toEqual(g);
    expect(sameShape(back, g)).toBe(true);
  });

  it('reads the installed model’s means as PocketSphinx does (checksummed header, 42 × 3 × 128, 13 values each)', () => {
    const file = path.join(DEFAULT_MODEL_DIR, 'en-us', 'means');
    if (!existsSync(file)) return;
    const means = readGaussianFile(readFileSync(file));
    expect(means).toMatchObject({ codebooks: 42, streams: 3, densities: 128, vectorLengths: [13, 13, 13] });
    expect(means.values.length).toBe(42 * 128 * 39);
  });

  it('refuses a truncated file, extra bytes, a count that does not match, a non-finite value and a foreign file', () => {
    const good = writeGaussianFile(small());
    expect(() => readGaussianFile(good.subarray(0, good.length - 2))).toThrow(/bytes of data/);
    expect(() => readGaussianFile(Buffer.concat([good, Buffer.alloc(8)]))).toThrow(/bytes of data/);
    const header = good.indexOf('endhdr\n') + 7;
    const wrongCount = Buffer.from(good);
    wrongCount.writeUInt32LE(11, header + 4 * 6); // the value count, after byte order, 3 counts and 2 lengths
    expect(() => readGaussianFile(wrongCount)).toThrow(/11 values where the dimensions make 12/);
    expect(() => readGaussianFile(writeGaussianFile(small([...Array(11).fill(0), NaN])))).toThrow(/value 11 is not finite/);
    expect(() => readGaussianFile(Buffer.from('# an MLLR file\n1\n3\n'))).toThrow(/not a Sphinx-3/);
    const swapped = Buffer.from(good);
    swapped.writeUInt32BE(0x11223344, header);
    expect(() => readGaussianFile(swapped)).toThrow(/little-endian/);
  });
});

describe('meanShift', () => {
  const ones = small(Array(12).fill(4)); // variance 4: σ 2
  it('counts the Gaussians moved and the largest move in σ (root mean square over a Gaussian’s values)', () => {
    const base = small();
    const moved = Float32Array.from(base.values);
    moved[0] = moved[0]! + 2; // codebook 0, stream 0, density 0: (2/2)² and 0 over 2 values → √0.5 σ
    moved[11] = moved[11]! + 6; // codebook 1, stream 1, density 1: 6/2 = 3 σ
    const shift = meanShift(base, { ...base, values: moved }, ones);
    expect(shift.movedShare).toBeCloseTo(2 / 8, 10);
    expect(shift.maxSigmas).toBeCloseTo(3, 6);
    expect(meanShift(base, base, ones)).toEqual({ movedShare: 0, maxSigmas: 0 });
  });

  it('leaves out Gaussians whose variance is at the decoder’s floor (never trained), and refuses other models', () => {
    const base = small();
    const variances = Float32Array.from(ones.values);
    variances[11] = 0;
    const moved = Float32Array.from(base.values);
    moved[11] = moved[11]! + 100;
    expect(meanShift(base, { ...base, values: moved }, { ...ones, values: variances })).toEqual({ movedShare: 0, maxSigmas: 0 });
    expect(() => meanShift(base, { ...base, densities: 3 }, ones)).toThrow(/different models/);
  });
});
