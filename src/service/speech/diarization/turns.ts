import type { SpeakerTurn, Span } from '../types';

/**
 * Turns from per-frame cluster labels over runs of speech frames. `runs` are the frame ranges of each
 * speech span with the span's own times, so turns never spill into non-speech. Labels become `S1`, `S2`,
 * … in order of first appearance; the returned map gives cluster → label.
 */
export function labelsToTurns(
  runs: { from: number; to: number; span: Span }[],
  labels: Int32Array,
  frameStart: (frame: number) => number,
): { turns: SpeakerTurn[]; names: Map<number, string> } {
  const names = new Map<number, string>();
  const turns: SpeakerTurn[] = [];
  for (const run of runs) {
    let i = run.from;
    while (i < run.to) {
      const cluster = labels[i]!;
      let j = i + 1;
      while (j < run.to && labels[j] === cluster) j++;
      if (!names.has(cluster)) names.set(cluster, `S${names.size + 1}`);
      const start = i === run.from ? run.span.start : frameStart(i);
      const end = j === run.to ? run.span.end : frameStart(j);
      if (end > start) turns.push({ start, end, speaker: names.get(cluster)! });
      i = j;
    }
  }
  return { turns, names };
}
