import { describe, expect, it } from 'vitest';
import { readSendump, writeMixtureWeights } from './sendump';

/** A sendump as PocketSphinx's mk_s2sendump writes it: header strings, 0, #codewords, #pdfs, bytes. */
function sendump(headers: string[], densities: number, senones: number, bytes: number[]): Buffer {
  const parts: Buffer[] = [];
  const int = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    return b;
  };
  for (const h of headers) {
    parts.push(int(h.length + 1), Buffer.from(`${h}\0`, 'latin1'));
  }
  parts.push(int(0), int(densities), int(senones), Buffer.from(bytes));
  return Buffer.concat(parts);
}

describe('readSendump', () => {
  it('expands 8-bit −log weights into w[senone][feature][density]', () => {
    // 2 features × 2 codewords × 3 senones; stored feature-major, codeword rows of senone bytes.
    const bytes = [0, 1, 2, 3, 4, 5, /* feature 1 */ 6, 7, 8, 9, 10, 11];
    const m = readSendump(
      sendump(['BEGIN FILE FORMAT DESCRIPTION', 'cluster_count 0', 'feature_count 2'], 2, 3, bytes),
    );
    expect([m.senones, m.features, m.densities]).toEqual([3, 2, 2]);
    const w = (s: number, f: number, d: number) => m.weights[(s * 2 + f) * 2 + d]!;
    expect(w(0, 0, 0)).toBeCloseTo(1, 6); // byte 0 → weight 1
    // byte b → 1.0001^−(b << 10)
    expect(w(1, 0, 0)).toBeCloseTo(1.0001 ** -1024, 6); // feature 0, codeword 0, senone 1
    expect(w(0, 0, 1)).toBeCloseTo(1.0001 ** -(3 << 10), 6); // feature 0, codeword 1, senone 0
    expect(w(2, 1, 1)).toBeCloseTo(1.0001 ** -(11 << 10), 6);
  });

  it('honours mixw_shift and refuses clustered or truncated files', () => {
    const m = readSendump(sendump(['mixw_shift 8', 'feature_count 1'], 1, 1, [2]));
    expect(m.weights[0]).toBeCloseTo(1.0001 ** -512, 6);
    expect(() => readSendump(sendump(['cluster_count 16', 'feature_count 1'], 1, 1, [0]))).toThrow(
      /clustered/,
    );
    expect(() => readSendump(sendump(['feature_count 1'], 2, 2, [0, 1, 2]))).toThrow(
      /expected 4 weight bytes/,
    );
  });
});

describe('writeMixtureWeights', () => {
  it('writes a Sphinx-3 file: header padded to 4 bytes, byte-order mark, dimensions, float32 data', () => {
    const weights = new Float32Array([0.5, 0.25, 0.125, 0.125]);
    const out = writeMixtureWeights({ senones: 2, features: 1, densities: 2, weights });
    const end = out.indexOf('endhdr\n') + 'endhdr\n'.length;
    expect(out.toString('latin1', 0, 3)).toBe('s3\n');
    // sphinxtrain's bw refused the file with a "chksum0 no" line and no checksum: none is written.
    expect(out.toString('latin1', 0, end)).not.toMatch(/chksum/);
    expect(end % 4).toBe(0);
    expect(out.readUInt32LE(end)).toBe(0x11223344);
    expect([0, 1, 2, 3].map((k) => out.readUInt32LE(end + 4 + 4 * k))).toEqual([2, 1, 2, 4]);
    expect([0, 1, 2, 3].map((k) => out.readFloatLE(end + 20 + 4 * k))).toEqual([0.5, 0.25, 0.125, 0.125]);
    expect(out.length).toBe(end + 20 + 16);
  });
});
