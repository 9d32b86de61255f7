import { createFeatureMatrix, type FeatureMatrix } from './features';

/**
 * Regression deltas: d[t] = Σₙ n·(c[t+n] − c[t−n]) / (2·Σₙ n²), n = 1..width, with edge frames repeated
 * (the HTK/Kaldi definition). Apply twice for delta-deltas.
 */
export function deltas(m: FeatureMatrix, width = 2): FeatureMatrix {
  const out = createFeatureMatrix(m.frames, m.dim);
  if (m.frames === 0) return out;
  let denom = 0;
  for (let n = 1; n <= width; n++) denom += 2 * n * n;
  const last = m.frames - 1;
  for (let t = 0; t < m.frames; t++) {
    for (let d = 0; d < m.dim; d++) {
      let acc = 0;
      for (let n = 1; n <= width; n++) {
        const ahead = Math.min(last, t + n);
        const behind = Math.max(0, t - n);
        acc += n * (m.data[ahead * m.dim + d]! - m.data[behind * m.dim + d]!);
      }
      out.data[t * m.dim + d] = acc / denom;
    }
  }
  return out;
}
