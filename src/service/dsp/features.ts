/** A row-major matrix of per-frame features: frame i occupies data[i·dim … i·dim + dim). */
export interface FeatureMatrix {
  data: Float32Array;
  frames: number;
  dim: number;
}

export function createFeatureMatrix(frames: number, dim: number): FeatureMatrix {
  return { data: new Float32Array(frames * dim), frames, dim };
}

/** A view of frame i's vector (no copy). */
export function frameVector(m: FeatureMatrix, i: number): Float32Array {
  return m.data.subarray(i * m.dim, (i + 1) * m.dim);
}

/** Per-dimension mean and standard deviation over all frames. */
export function featureMeanStd(m: FeatureMatrix): { mean: Float64Array; std: Float64Array } {
  const mean = new Float64Array(m.dim);
  const sq = new Float64Array(m.dim);
  for (let i = 0; i < m.frames; i++) {
    for (let d = 0; d < m.dim; d++) {
      const v = m.data[i * m.dim + d]!;
      mean[d]! += v;
      sq[d]! += v * v;
    }
  }
  const std = new Float64Array(m.dim);
  const n = Math.max(1, m.frames);
  for (let d = 0; d < m.dim; d++) {
    mean[d]! /= n;
    std[d] = Math.sqrt(Math.max(0, sq[d]! / n - mean[d]! * mean[d]!));
  }
  return { mean, std };
}

/** Cepstral mean and variance normalisation in place: every dimension to zero mean, unit variance. */
export function normalizeMeanVariance(m: FeatureMatrix): FeatureMatrix {
  const { mean, std } = featureMeanStd(m);
  for (let i = 0; i < m.frames; i++) {
    for (let d = 0; d < m.dim; d++) {
      const k = i * m.dim + d;
      m.data[k] = (m.data[k]! - mean[d]!) / (std[d]! > 1e-8 ? std[d]! : 1);
    }
  }
  return m;
}

/** Picks rows (frames) by index into a new matrix. */
export function selectFrames(m: FeatureMatrix, indices: ArrayLike<number>): FeatureMatrix {
  const out = createFeatureMatrix(indices.length, m.dim);
  for (let i = 0; i < indices.length; i++) out.data.set(frameVector(m, indices[i]!), i * m.dim);
  return out;
}

/** Concatenates the columns of matrices with the same frame count ([a | b]). */
export function stackColumns(...parts: FeatureMatrix[]): FeatureMatrix {
  const frames = parts[0]?.frames ?? 0;
  if (parts.some((p) => p.frames !== frames)) throw new Error('stackColumns: frame counts differ');
  const dim = parts.reduce((s, p) => s + p.dim, 0);
  const out = createFeatureMatrix(frames, dim);
  for (let i = 0; i < frames; i++) {
    let offset = i * dim;
    for (const p of parts) {
      out.data.set(frameVector(p, i), offset);
      offset += p.dim;
    }
  }
  return out;
}
