import { describe, expect, it } from 'vitest';
import { dctMatrix } from './dct';

describe('dctMatrix', () => {
  it('is orthonormal when square', () => {
    const m = dctMatrix(8, 8);
    for (let a = 0; a < 8; a++) {
      for (let b = 0; b < 8; b++) {
        let dot = 0;
        for (let n = 0; n < 8; n++) dot += m[a]![n]! * m[b]![n]!;
        expect(dot).toBeCloseTo(a === b ? 1 : 0, 12);
      }
    }
  });

  it('maps a constant only to coefficient 0', () => {
    const m = dctMatrix(5, 10);
    for (let k = 1; k < 5; k++) expect(m[k]!.reduce((s, v) => s + v, 0)).toBeCloseTo(0, 12);
  });
});
