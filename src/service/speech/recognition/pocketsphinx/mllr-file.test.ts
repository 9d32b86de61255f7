import { describe, expect, it } from 'vitest';
import { mllrDistance, parseMllrMatrix } from './mllr-file';

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
