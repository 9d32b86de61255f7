/**
 * Sphinx-3 binary Gaussian parameter files (`means`, `variances`; sphinxtrain's s3gau format, which
 * PocketSphinx's `-mean` reads): a text header ending in `endhdr\n`, the byte-order word 0x11223344, the
 * codebook, stream and density counts, each stream's vector length, the number of values, the float32
 * values (codebook, stream, density, dimension order) and, when the header says `chksum0 yes`, a checksum
 * word. Read to refuse a broken adapted model (NaN from an estimate, a truncated file, a shape other than
 * the model's) before a decoder loads it.
 */
export interface GaussianFile {
  codebooks: number;
  streams: number;
  densities: number;
  vectorLengths: number[];
  values: Float32Array;
}

const BYTE_ORDER = 0x11223344;
/** PocketSphinx's default `-varfloor`. */
const DECODER_VARIANCE_FLOOR = 1e-4;
const END = 'endhdr\n';

export function readGaussianFile(buf: Buffer): GaussianFile {
  const head = buf.subarray(0, Math.min(buf.length, 4096)).toString('latin1');
  if (!head.startsWith('s3\n')) throw new Error('Gaussian file: not a Sphinx-3 parameter file');
  const end = head.indexOf(END);
  if (end < 0) throw new Error('Gaussian file: no end of header');
  const checksummed = /^chksum0 yes$/m.test(head.slice(0, end));
  let pos = end + END.length;
  const word = (what: string): number => {
    if (pos + 4 > buf.length) throw new Error(`Gaussian file: truncated (expected ${what})`);
    const v = buf.readUInt32LE(pos);
    pos += 4;
    return v;
  };
  // Files written on this machine are little-endian; a swapped one is refused rather than misread.
  if (word('byte order') !== BYTE_ORDER) throw new Error('Gaussian file: not little-endian');
  const count = (what: string, max: number) => {
    const v = word(what);
    if (v < 1 || v > max) throw new Error(`Gaussian file: bad ${what}: ${v}`);
    return v;
  };
  const codebooks = count('codebook count', 100_000);
  const streams = count('stream count', 16);
  const densities = count('density count', 100_000);
  const vectorLengths = Array.from({ length: streams }, () => count('vector length', 1000));
  const n = word('value count');
  const expected = codebooks * densities * vectorLengths.reduce((a, b) => a + b, 0);
  if (n !== expected) throw new Error(`Gaussian file: ${n} values where the dimensions make ${expected}`);
  const bytes = n * 4 + (checksummed ? 4 : 0);
  if (pos + bytes !== buf.length) throw new Error(`Gaussian file: ${buf.length - pos} bytes of data where ${bytes} are expected`);
  const values = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = buf.readFloatLE(pos + 4 * i);
    if (!Number.isFinite(v)) throw new Error(`Gaussian file: value ${i} is not finite`);
    values[i] = v;
  }
  return { codebooks, streams, densities, vectorLengths, values };
}

/** Whether two files describe Gaussians of the same model (same counts and vector lengths). */
export function sameShape(a: GaussianFile, b: GaussianFile): boolean {
  return (
    a.codebooks === b.codebooks &&
    a.streams === b.streams &&
    a.densities === b.densities &&
    a.vectorLengths.length === b.vectorLengths.length &&
    a.vectorLengths.every((v, i) => v === b.vectorLengths[i])
  );
}

/**
 * How far adapted means moved from other means of the model, in its standard deviations (root mean square of
 * |μ' − μ| / σ over a Gaussian's dimensions): the share of Gaussians moved at all and the largest move. Says in
 * the log how much of the model the corrected speech reached. Gaussians with a variance at or under the
 * decoder's floor (1e-4; training never used them, some have 0) have no scale and are left out.
 */
export function meanShift(
  base: GaussianFile,
  adapted: GaussianFile,
  variances: GaussianFile,
): { movedShare: number; maxSigmas: number } {
  if (!sameShape(base, adapted) || !sameShape(base, variances)) throw new Error('Gaussian files of different models');
  let moved = 0;
  let total = 0;
  let maxSigmas = 0;
  let i = 0;
  for (let c = 0; c < base.codebooks; c++)
    for (const len of base.vectorLengths)
      for (let d = 0; d < base.densities; d++, i += len) {
        let sum = 0;
        let used = true;
        let any = false;
        for (let k = i; k < i + len; k++) {
          const variance = variances.values[k]!;
          if (!(variance > DECODER_VARIANCE_FLOOR)) used = false;
          const diff = adapted.values[k]! - base.values[k]!;
          if (diff !== 0) any = true;
          sum += (diff * diff) / variance;
        }
        if (!used) continue;
        total++;
        if (any) moved++;
        maxSigmas = Math.max(maxSigmas, Math.sqrt(sum / len));
      }
  return { movedShare: total ? moved / total : 0, maxSigmas };
}

/** A file in the same format (for tests and tools): header, byte order, dimensions, values, checksum-free. */
export function writeGaussianFile(g: GaussianFile): Buffer {
  let header = 's3\nversion 1.0\nchksum0 no\n';
  const rest = (header.length + END.length) % 4;
  header += `${' '.repeat(rest ? 4 - rest : 0)}${END}`;
  const words = [BYTE_ORDER, g.codebooks, g.streams, g.densities, ...g.vectorLengths, g.values.length];
  const out = Buffer.alloc(header.length + 4 * words.length + 4 * g.values.length);
  out.write(header, 0, 'latin1');
  let pos = header.length;
  for (const w of words) pos = out.writeUInt32LE(w, pos);
  for (const v of g.values) pos = out.writeFloatLE(v, pos);
  return out;
}
