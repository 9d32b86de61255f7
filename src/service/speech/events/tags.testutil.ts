/** Hand-made tagger output for unit tests: a few named classes whose scores are set per patch. */
import type { TagFrames } from './tagger';

/** YAMNet's patch geometry, with only the labels a test needs plus whatever the detectors look up. */
export function fakeTags(patches: number, labels: readonly string[]): TagFrames {
  return { hop: 0.48, window: 0.975, labels, patches, scores: new Float32Array(patches * labels.length) };
}

/** Sets class `label` to `score` on patches first…last. */
export function setScore(
  tags: TagFrames,
  label: string,
  first: number,
  last: number,
  score: number,
): TagFrames {
  const c = tags.labels.indexOf(label);
  if (c < 0) throw new Error(`no label ${label}`);
  for (let p = first; p <= last; p++) tags.scores[p * tags.labels.length + c] = score;
  return tags;
}
