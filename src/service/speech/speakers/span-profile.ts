import { createFeatureMatrix } from '../../dsp/features';
import { computeMfcc } from '../../dsp/mfcc';
import { SAMPLE_RATE, type Span } from '../types';
import { computeProfile } from './profile';

/** Words closer than this are measured as one stretch (fewer frame edges). */
const JOIN_GAP_SECONDS = 0.3;

/** Sorted spans with small gaps closed. */
export function joinSpans(spans: readonly Span[], gap = JOIN_GAP_SECONDS): Span[] {
  const sorted = [...spans].filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start - last.end <= gap) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/**
 * The voice profile (speech/speakers/profile.ts) of the speech in `spans`, with the features the spectral
 * diarizer uses (20 MFCCs, 25 ms frames, 10 ms hop, every frame of the speech), so it compares with the
 * profiles diarization made. Null when the spans hold less than one frame.
 */
export function profileOfSpans(pcm: Float32Array, spans: readonly Span[]): number[] | null {
  const pieces = [];
  let frames = 0;
  for (const span of joinSpans(spans)) {
    const from = Math.max(0, Math.floor(span.start * SAMPLE_RATE));
    const to = Math.min(pcm.length, Math.ceil(span.end * SAMPLE_RATE));
    if (to - from < 400) continue;
    const { mfcc } = computeMfcc(pcm.subarray(from, to));
    pieces.push(mfcc);
    frames += mfcc.frames;
  }
  if (frames === 0) return null;
  const all = createFeatureMatrix(frames, pieces[0]!.dim);
  let at = 0;
  for (const m of pieces) {
    all.data.set(m.data, at);
    at += m.data.length;
  }
  return computeProfile(
    all,
    Int32Array.from({ length: frames }, (_, i) => i),
  );
}
