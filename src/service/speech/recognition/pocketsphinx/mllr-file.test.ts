import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { featureStreamLengths, identityMllr, mllrDistance, parseMllrMatrix } from './mllr-file';

// mllr_solve's layout (one class, two streams of length 2), as it writes it: one row per line.
const SAMPLE = `1
2
2
1.1 0.0 
-0.2 0.9 
0.5 -0.25 
1.0 1.0 
2
1.0 0.0 
0.0 1.0 
0.0 0.0 
1.0 1.0 
`;

describe('parseMllrMatrix', () => {
  it('reads classes, streams, A, b and variance scales', () => {
    const t = parseMllrMatrix(SAMPLE);
    expect(t.classes).toHaveLength(1);
    expect(t.classes[0]).toHaveLength(2);
    expect(t.classes[0]![0]).toEqual({
      a: [
        [1.1, 0],
        [-0.2, 0.9],
      ],
      b: [0.5, -0.25],
      varianceScale: [1, 1],
    });
    const d = mllrDistance(t);
    expect(d.matrix).toBeCloseTo(0.2, 9);
    expect(d.offset).toBe(0.5);
  });

  it('refuses NaN (a singular estimate), truncation and trailing values', () => {
    expect(() => parseMllrMatrix(SAMPLE.replace('1.1', 'nan'))).toThrow(/not a finite number/);
    expect(() => parseMllrMatrix(SAMPLE.slice(0, SAMPLE.lastIndexOf('0.0 0.0')))).toThrow(/truncated/);
    expect(() => parseMllrMatrix(`${SAMPLE}7\n`)).toThrow(/after the last class/);
    expect(() => parseMllrMatrix('0\n3\n')).toThrow(/bad class count/);
  });
});

describe('identityMllr and featureStreamLengths', () => {
  it('writes an identity transform that parses back as A = I, b = 0, unscaled variances', () => {
    const t = parseMllrMatrix(identityMllr([2, 3]));
    expect(t.classes).toHaveLength(1);
    expect(t.classes[0]!.map((s) => s.a.length)).toEqual([2, 3]);
    expect(mllrDistance(t)).toEqual({ matrix: 0, offset: 0 });
    expect(t.classes[0]![1]!.varianceScale).toEqual([1, 1, 1]);
  });

  it('reads the stream lengths from the model folder’s -svspec, else one stream of 39', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-feat-'));
    try {
      expect(featureStreamLengths(dir)).toEqual([39]);
      writeFileSync(path.join(dir, 'feat.params'), '-feat 1s_c_d_dd\n-svspec 0-12/13-25/26-38\n-agc none\n');
      expect(featureStreamLengths(dir)).toEqual([13, 13, 13]);
      writeFileSync(path.join(dir, 'feat.params'), '-svspec 0-3,8-9/4-7\n');
      expect(featureStreamLengths(dir)).toEqual([6, 4]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
