/**
 * Best label path through `frames` frames given per-frame log-likelihoods `scores` (frames × labels,
 * row-major) and a constant cost for switching label between neighbouring frames. The penalty is what
 * keeps turns from flickering at frame rate.
 */
export function viterbiLabels(
  scores: Float64Array,
  frames: number,
  labels: number,
  switchPenalty: number,
): Int32Array {
  const path = new Int32Array(frames);
  if (frames === 0 || labels === 0) return path;
  const back = new Int32Array(frames * labels);
  let prev = new Float64Array(labels);
  let next = new Float64Array(labels);
  for (let k = 0; k < labels; k++) prev[k] = scores[k]!;
  for (let t = 1; t < frames; t++) {
    let bestPrev = 0;
    for (let k = 1; k < labels; k++) if (prev[k]! > prev[bestPrev]!) bestPrev = k;
    for (let k = 0; k < labels; k++) {
      const stay = prev[k]!;
      const move = prev[bestPrev]! - switchPenalty;
      const from = stay >= move ? k : bestPrev;
      next[k] = Math.max(stay, move) + scores[t * labels + k]!;
      back[t * labels + k] = from;
    }
    [prev, next] = [next, prev];
  }
  let best = 0;
  for (let k = 1; k < labels; k++) if (prev[k]! > prev[best]!) best = k;
  for (let t = frames - 1; t >= 0; t--) {
    path[t] = best;
    best = back[t * labels + best]!;
  }
  return path;
}
