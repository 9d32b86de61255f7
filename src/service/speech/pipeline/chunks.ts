import { SAMPLE_RATE, type Span } from '../types';

/**
 * Turns VAD spans into the pieces of audio handed to the recognizer: spans separated by short pauses are
 * merged (a recognizer decodes a whole phrase better than its fragments, and each call has a fixed cost),
 * and stretches longer than the recognizer's comfortable length are cut at their quietest moment so no
 * word is split in half.
 */
export interface ChunkOptions {
  /** Longest piece handed to the recognizer. Default 20 s. */
  maxChunkSeconds?: number;
  /** Spans whose gap is at most this are merged, while the result stays under the maximum. Default 0.6 s. */
  mergeGapSeconds?: number;
}

export const DEFAULT_CHUNK_OPTIONS: Required<ChunkOptions> = { maxChunkSeconds: 20, mergeGapSeconds: 0.6 };

/** Streaming merger: feed spans in time order, get merged chunks once nothing more can join them. */
export class ChunkMerger {
  private current: Span | null = null;
  private readonly opts: Required<ChunkOptions>;

  constructor(options: ChunkOptions = {}) {
    this.opts = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  }

  /** The chunk still open to merging (a copy), if any. */
  get pending(): Span | null {
    return this.current ? { ...this.current } : null;
  }

  /** Goes on from where another merger stood (its `pending`), e.g. in a resumed run. */
  restore(pending: Span | null): void {
    this.current = pending ? { ...pending } : null;
  }

  push(span: Span): Span[] {
    const cur = this.current;
    if (
      cur &&
      span.start - cur.end <= this.opts.mergeGapSeconds &&
      span.end - cur.start <= this.opts.maxChunkSeconds
    ) {
      cur.end = span.end;
      return [];
    }
    this.current = { start: span.start, end: span.end };
    return cur ? [cur] : [];
  }

  finish(): Span[] {
    const cur = this.current;
    this.current = null;
    return cur ? [cur] : [];
  }
}

export interface QuietSplitOptions {
  maxChunkSeconds?: number;
  /** Cuts are searched for in the last (1 − this) of each allowed stretch, so pieces are not tiny. Default 0.5. */
  minFraction?: number;
  /** Energy is measured over frames of this length, smoothed over three frames. Default 0.02 s. */
  frameSeconds?: number;
}

/**
 * Splits `span` (whose audio is `pcm`, starting at `span.start`) into pieces no longer than the maximum,
 * cutting where a short-time energy is lowest. Pure, and O(length of the span).
 */
export function splitAtQuietPoints(pcm: Float32Array, span: Span, options: QuietSplitOptions = {}): Span[] {
  const maxSeconds = options.maxChunkSeconds ?? DEFAULT_CHUNK_OPTIONS.maxChunkSeconds;
  const minFraction = options.minFraction ?? 0.5;
  const frame = Math.max(1, Math.round((options.frameSeconds ?? 0.02) * SAMPLE_RATE));
  const total = span.end - span.start;
  if (total <= maxSeconds) return [{ ...span }];

  const nFrames = Math.floor(pcm.length / frame);
  const energy = new Float64Array(nFrames);
  for (let f = 0; f < nFrames; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += pcm[i]! * pcm[i]!;
    energy[f] = sum;
  }
  const smooth = (f: number) => (energy[f - 1] ?? energy[f]!) + energy[f]! + (energy[f + 1] ?? energy[f]!);

  const pieces: Span[] = [];
  const framesPerSecond = SAMPLE_RATE / frame;
  let start = span.start;
  while (span.end - start > maxSeconds) {
    // Cutting in the middle of frame f lands at span.start + (f + 0.5) / framesPerSecond.
    const from = (start - span.start) * framesPerSecond;
    const lo = Math.min(nFrames - 1, Math.ceil(from + maxSeconds * minFraction * framesPerSecond));
    const hi = Math.min(nFrames - 1, Math.floor(from + maxSeconds * framesPerSecond - 0.5 - 1e-6));
    let best = hi;
    for (let f = lo; f <= hi; f++) if (smooth(f) < smooth(best)) best = f;
    let cut = span.start + (best + 0.5) / framesPerSecond;
    // PCM shorter than the span (should not happen) must not stall the loop.
    if (!(cut > start + 1e-3)) cut = start + maxSeconds;
    pieces.push({ start, end: cut });
    start = cut;
  }
  pieces.push({ start, end: span.end });
  return pieces;
}
