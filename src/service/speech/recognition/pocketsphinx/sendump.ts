/**
 * Debian's en-us model ships its mixture weights only as `sendump` (8-bit quantised, PocketSphinx's own
 * format); sphinxtrain's Baum-Welch (`bw`) reads Sphinx-3 `mixture_weights`. This expands one into the other,
 * as sphinxtrain's Python 2 `sendump.py` does (not runnable here: Python 2 is not installed).
 *
 * sendump: length-prefixed header strings (int32 + NUL-terminated text) ended by a zero length; then int32
 * #codewords and #pdfs (senones); then, per feature stream and codeword, one byte per senone holding
 * −log₁.₀₀₀₁(w) >> mixw_shift (default 10).
 */
export interface MixtureWeights {
  senones: number;
  features: number;
  densities: number;
  /** w[senone][feature][density], row-major. */
  weights: Float32Array;
}

export function readSendump(buf: Buffer): MixtureWeights {
  let pos = 0;
  const int = () => {
    if (pos + 4 > buf.length) throw new Error('sendump: truncated header');
    const v = buf.readInt32LE(pos);
    pos += 4;
    return v;
  };
  const headers = new Map<string, number>();
  for (;;) {
    const n = int();
    if (n === 0) break;
    if (n < 0 || n > 65536 || pos + n > buf.length) throw new Error('sendump: bad header string length');
    const text = buf.toString('latin1', pos, pos + n - 1);
    pos += n;
    const m = /^(\w+)\s+(-?\d+)$/.exec(text.trim());
    if (m) headers.set(m[1]!, Number(m[2]));
  }
  if ((headers.get('cluster_count') ?? 0) !== 0)
    throw new Error('sendump: clustered (4-bit) weights are not supported');
  const shift = headers.get('mixw_shift') ?? 10;
  const features = headers.get('feature_count') ?? 1;
  const densities = int();
  const senones = int();
  if (densities <= 0 || senones <= 0 || features <= 0) throw new Error('sendump: bad dimensions');
  if (buf.length - pos !== features * densities * senones)
    throw new Error(
      `sendump: expected ${features * densities * senones} weight bytes, found ${buf.length - pos}`,
    );
  const weights = new Float32Array(senones * features * densities);
  const ln = Math.log(1.0001);
  for (let f = 0; f < features; f++)
    for (let d = 0; d < densities; d++)
      for (let s = 0; s < senones; s++) {
        weights[(s * features + f) * densities + d] = Math.exp(-(buf[pos++]! << shift) * ln);
      }
  return { senones, features, densities, weights };
}

/** A Sphinx-3 binary parameter file (s3 header, byte-order mark, dimensions, float32 data, checksum-free). */
export function writeMixtureWeights(m: MixtureWeights): Buffer {
  let header = 's3\nversion 1.0\n';
  // The data must start 4-byte aligned: pad before "endhdr".
  const rest = (header.length + 'endhdr\n'.length) % 4;
  header += `${' '.repeat(rest ? 4 - rest : 0)}endhdr\n`;
  const head = Buffer.from(header, 'latin1');
  const out = Buffer.alloc(head.length + 4 + 16 + m.weights.length * 4);
  head.copy(out, 0);
  let pos = head.length;
  out.writeUInt32LE(0x11223344, pos);
  pos += 4;
  for (const v of [m.senones, m.features, m.densities, m.weights.length]) {
    out.writeUInt32LE(v, pos);
    pos += 4;
  }
  for (const w of m.weights) {
    out.writeFloatLE(w, pos);
    pos += 4;
  }
  return out;
}
