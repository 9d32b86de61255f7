import type { Aligner, Span, Transcript } from '../speech/types';
import { alignmentRequest, gapTiming, widened, type GapTiming, type LineCorrection } from './text-corrections';

/** The recording's audio over a few stretches (media/decode-spans.ts). */
export type SpanAudio = (spans: readonly Span[]) => Promise<Float32Array[]>;

/** A gap whose words the aligner did not all decode (spread by syllables, or some placed by interpolation). */
const failedGap = (t: GapTiming) => t.interpolated || (t.guessed?.length ?? 0) > 0;

/**
 * Times every gap of the corrections, then, up to `rounds − 1` times, takes the lines with a gap whose
 * alignment failed, releases the unchanged words either side of those gaps and aligns again over the wider
 * stretch. Returns the corrections as finally planned (released words are listed as retimed) with their timings.
 */
export async function timeCorrections(
  transcript: Transcript,
  corrections: readonly LineCorrection[],
  aligner: Aligner | null,
  audio: SpanAudio | null,
  rounds = 3,
): Promise<{ corrections: LineCorrection[]; timings: GapTiming[][] }> {
  const planned = [...corrections];
  const timings = await timeOnce(transcript, planned, aligner, audio);
  if (!aligner) return { corrections: planned, timings };
  for (let round = 1; round < rounds; round++) {
    const again: number[] = [];
    planned.forEach((c, k) => {
      const failed = c.plan.gaps.filter((_, g) => failedGap(timings[k]![g]!));
      const wider = failed.length ? widened(transcript, c, failed) : null;
      if (wider) {
        planned[k] = wider;
        again.push(k);
      }
    });
    if (!again.length) break;
    const retimed = await timeOnce(transcript, again.map((k) => planned[k]!), aligner, audio);
    again.forEach((k, i) => (timings[k] = retimed[i]!));
  }
  return { corrections: planned, timings };
}

/**
 * Times every gap of the corrections: forced alignment of the gap's words with the kept words around it
 * as context, over their audio (one decode of the recording for all gaps), fitted between the kept words.
 * A gap whose alignment fails (or with no aligner installed, or audio that cannot be read) is spread by
 * syllables, and marked so.
 */
async function timeOnce(
  transcript: Transcript,
  corrections: readonly LineCorrection[],
  aligner: Aligner | null,
  audio: SpanAudio | null,
): Promise<GapTiming[][]> {
  const requests = corrections.map((c) => c.plan.gaps.map((gap) => ({ gap, ...alignmentRequest(transcript.segments[c.segmentIndex]!, c, gap) })));
  const flat = requests.flat();
  let pcm: Float32Array[] | null = null;
  if (aligner && audio && flat.length) {
    pcm = await audio(flat.map((r) => ({ start: r.audio.start, end: Math.min(r.audio.end, transcript.duration) }))).catch(() => null);
  }
  let k = 0;
  const out: GapTiming[][] = [];
  for (const [ci, c] of corrections.entries()) {
    const timings: GapTiming[] = [];
    for (const request of requests[ci]!) {
      const samples = pcm?.[k++];
      let aligned = null;
      if (aligner && samples && samples.length > 0) {
        aligned = await aligner.align(samples, request.text, { offset: request.audio.start }).catch(() => null);
        // One time per written word is what the fit needs; anything else counts as a failure.
        if (aligned && aligned.length !== request.text.split(' ').length) aligned = null;
      }
      timings.push(gapTiming(c, request.gap, aligned, request.lead));
    }
    out.push(timings);
  }
  return out;
}
