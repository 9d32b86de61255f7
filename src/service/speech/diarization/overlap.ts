/**
 * Overlapped speech from the clusters' own models: a stretch labelled speaker A also gets speaker B where
 * B's model explains it as well as B typically explains B's own speech. Each model's window log-likelihood
 * is compared with the `quantile` of the same measure over the frames labelled with it, so the criterion is
 * relative to each speaker (no absolute log-likelihood threshold). Pure: scores in, second labels out.
 */

/** Mean of each column over a centred window of `width` frames, within [from, to) only (no spill across runs). */
export function windowMeans(
  scores: Float64Array,
  k: number,
  runs: readonly { from: number; to: number }[],
  width: number,
): Float64Array {
  const out = new Float64Array(scores.length);
  const half = Math.floor(width / 2);
  for (const { from, to } of runs) {
    for (let c = 0; c < k; c++) {
      // Prefix sums of this run's column.
      const prefix = new Float64Array(to - from + 1);
      for (let f = from; f < to; f++) prefix[f - from + 1] = prefix[f - from]! + scores[f * k + c]!;
      for (let f = from; f < to; f++) {
        const a = Math.max(from, f - half);
        const b = Math.min(to, f + half + 1);
        out[f * k + c] = (prefix[b - from]! - prefix[a - from]!) / (b - a);
      }
    }
  }
  return out;
}

function quantileOf(values: number[], q: number): number {
  if (values.length === 0) return Infinity;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))]!;
}

/**
 * Second speaker per frame (−1 = none). `means` are window-mean log-likelihoods (frames × k), `labels` the
 * single-speaker labels. A frame labelled a gets b ≠ a, the other model scoring it best, when b's score is
 * at least the `quantile` of b's scores over b's own frames; runs shorter than `minFrames` are dropped.
 */
export function secondSpeakers(
  means: Float64Array,
  labels: Int32Array,
  k: number,
  runs: readonly { from: number; to: number }[],
  quantile: number,
  minFrames: number,
): Int32Array {
  const n = labels.length;
  const out = new Int32Array(n).fill(-1);
  if (k < 2) return out;
  const own: number[][] = Array.from({ length: k }, () => []);
  for (let f = 0; f < n; f++) if (labels[f]! >= 0) own[labels[f]!]!.push(means[f * k + labels[f]!]!);
  const typical = own.map((v) => quantileOf(v, quantile));
  for (const { from, to } of runs) {
    let f = from;
    while (f < to) {
      const a = labels[f]!;
      const b = bestOther(means, f, k, a);
      if (a < 0 || b < 0 || means[f * k + b]! < typical[b]!) {
        f++;
        continue;
      }
      // A run of frames with the same pair that passes.
      let g = f + 1;
      while (g < to && labels[g] === a && means[g * k + b]! >= typical[b]! && bestOther(means, g, k, a) === b) g++;
      if (g - f >= minFrames) out.fill(b, f, g);
      f = g;
    }
  }
  return out;
}

/** The model other than `a` that scores frame f best. */
function bestOther(means: Float64Array, f: number, k: number, a: number): number {
  let b = -1;
  for (let c = 0; c < k; c++) if (c !== a && (b < 0 || means[f * k + c]! > means[f * k + b]!)) b = c;
  return b;
}
