import type {
  RecognizedSegment,
  RecognizedWord,
  Span,
  SpeakerTurn,
  TranscriptSegment,
  TranscriptWord,
} from '../types';

/**
 * Puts diarization and recognition together: each word gets the speaker whose turns overlap it most,
 * a segment is cut where its words change speaker, and labels are renumbered S1, S2, … in the order
 * they first speak in the transcript (the diarizer may have found a voice that says no recognized word).
 */

export const SINGLE_SPEAKER = 'S1';

function overlap(a: Span, b: Span): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/** Speaker of a stretch: most overlap with turns, else the nearest turn, else S1 when there are none. */
export function speakerAt(span: Span, turns: readonly SpeakerTurn[]): string {
  if (turns.length === 0) return SINGLE_SPEAKER;
  const byOverlap = new Map<string, number>();
  for (const t of turns) {
    if (t.end <= span.start || t.start >= span.end) continue;
    byOverlap.set(t.speaker, (byOverlap.get(t.speaker) ?? 0) + overlap(span, t));
  }
  let best: string | null = null;
  let bestOverlap = 0;
  for (const [speaker, seconds] of byOverlap) {
    if (seconds > bestOverlap) [best, bestOverlap] = [speaker, seconds];
  }
  if (best) return best;
  const mid = (span.start + span.end) / 2;
  let nearest = turns[0]!;
  let distance = Infinity;
  for (const t of turns) {
    const d = mid < t.start ? t.start - mid : mid > t.end ? mid - t.end : 0;
    if (d < distance) [nearest, distance] = [t, d];
  }
  return nearest.speaker;
}

export interface AssignOptions {
  /** Cut segments where the speaker changes between words. Default true. */
  splitOnSpeakerChange?: boolean;
  /**
   * A lone word whose speaker differs from the words on both sides, shorter than this, takes their speaker:
   * diarization frames are coarser than words, so such flips are nearly always boundary noise. Default 0.5 s.
   */
  maxFlipSeconds?: number;
}

export interface AssignedSpeakers {
  segments: TranscriptSegment[];
  /** Labels in order of first appearance. */
  speakers: string[];
  /** Diarizer label → transcript label, for carrying voice profiles over. */
  relabel: Map<string, string>;
}

export function assignSpeakers(
  recognized: readonly RecognizedSegment[],
  turns: readonly SpeakerTurn[],
  options: AssignOptions = {},
): AssignedSpeakers {
  const split = options.splitOnSpeakerChange ?? true;
  const maxFlip = options.maxFlipSeconds ?? 0.5;
  const pieces: Omit<TranscriptSegment, 'id'>[] = [];

  for (const seg of recognized) {
    if (seg.words.length === 0) {
      if (seg.text.trim()) pieces.push({ ...seg, speaker: speakerAt(seg, turns), words: [] });
      continue;
    }
    const labels = seg.words.map((w) => speakerAt(w, turns));
    for (let i = 1; i + 1 < labels.length; i++) {
      const w = seg.words[i]!;
      if (labels[i - 1] === labels[i + 1] && labels[i] !== labels[i - 1] && w.end - w.start < maxFlip) {
        labels[i] = labels[i - 1]!;
      }
    }
    const runs: { speaker: string; words: RecognizedWord[] }[] = [];
    seg.words.forEach((w, i) => {
      const last = runs.at(-1);
      if (last && (!split || last.speaker === labels[i])) last.words.push(w);
      else runs.push({ speaker: labels[i]!, words: [w] });
    });
    if (!split) runs[0]!.speaker = majoritySpeaker(seg.words, labels);
    for (const run of runs) {
      // Words carry their segment's speaker, so a reader never sees a segment disagree with its words.
      const words: TranscriptWord[] = run.words.map((w) => ({ ...w, speaker: run.speaker }));
      const whole = runs.length === 1;
      pieces.push({
        start: whole ? seg.start : words[0]!.start,
        end: whole ? seg.end : words.at(-1)!.end,
        speaker: run.speaker,
        text: whole ? seg.text.trim() : words.map((w) => w.word).join(' '),
        words,
        avgLogprob: seg.avgLogprob,
      });
    }
  }

  const relabel = new Map<string, string>();
  const label = (s: string) => {
    if (!relabel.has(s)) relabel.set(s, `S${relabel.size + 1}`);
    return relabel.get(s)!;
  };
  const segments = pieces.map((p, id) => ({
    id,
    ...p,
    speaker: label(p.speaker),
    words: p.words.map((w) => ({ ...w, speaker: label(w.speaker) })),
  }));
  return { segments, speakers: [...new Set(segments.map((s) => s.speaker))], relabel };
}

function majoritySpeaker(words: readonly RecognizedWord[], labels: readonly string[]): string {
  const seconds = new Map<string, number>();
  words.forEach((w, i) => seconds.set(labels[i]!, (seconds.get(labels[i]!) ?? 0) + (w.end - w.start)));
  return [...seconds].sort((a, b) => b[1] - a[1])[0]![0];
}
