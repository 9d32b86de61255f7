import type { LabeledTurn } from '../../src/service/speech/scoring/der';
import type { Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';

/**
 * Speech spans from the service's own Silero VAD v5 detector (src/service/speech/vad), so the bench
 * measures the VAD the service runs. With `scale`, the audio is first scaled to a 0.95 peak: the AMI
 * meeting mixes peak near 0.25 and Silero's probabilities drop with level. Spans enter at p ≥ `enter`,
 * leave after `minSilence` below `leave`; spans under 250 ms are dropped and 30 ms padding is added.
 * Without arguments beyond `pcm` and `scale: false` it is exactly the service's configuration.
 */
export async function sileroSpans(
  pcm: Float32Array,
  enter?: number,
  leave?: number,
  minSilence?: number,
  options: { scale?: boolean } = { scale: true },
): Promise<Span[]> {
  let input = pcm;
  if (options.scale !== false) {
    let peak = 0;
    for (const x of pcm) peak = Math.max(peak, Math.abs(x));
    const gain = peak > 0 ? 0.95 / peak : 1;
    input = pcm.map((x) => x * gain);
  }
  const service = enter === undefined && leave === undefined && minSilence === undefined && options.scale === false;
  const vad = createSileroVad(
    service
      ? {}
      : { threshold: enter, negThreshold: leave, minSilenceSeconds: minSilence, minSpeechSeconds: 0.25, speechPadSeconds: 0.03 },
  );
  try {
    return await vad.detect(input);
  } finally {
    await vad.close();
  }
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
