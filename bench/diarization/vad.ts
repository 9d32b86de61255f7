import type { LabeledTurn } from '../../src/service/speech/scoring/der';
import type { Span } from '../../src/service/speech/types';
import { createSileroVad } from '../../src/service/speech/vad/silero';
import { levelledSpeech } from '../../src/service/speech/pipeline/levelled-blocks';
import { DIARIZATION_VAD, diarizationSpeech } from '../../src/service/transcription/diarization-speech';

/**
 * Speech spans from the service's own code. `recognizer: true` is the recognizer's VAD as the pipeline runs
 * it (its own settings, on the recording levelled as the pipeline levels it); otherwise it is the service's diarization path
 * (`diarizationSpeech`: audio scaled to a 0.95 peak, DIARIZATION_VAD), with `enter`/`leave`/`minSilence`
 * overriding its settings for tuning.
 */
export async function sileroSpans(
  pcm: Float32Array,
  enter?: number,
  leave?: number,
  minSilence?: number,
  options: { recognizer?: boolean } = {},
): Promise<Span[]> {
  const recognizerVad = options.recognizer === true;
  const vad = createSileroVad(
    recognizerVad
      ? {}
      : {
          ...DIARIZATION_VAD,
          ...(enter !== undefined ? { threshold: enter } : {}),
          ...(leave !== undefined ? { negThreshold: leave } : {}),
          ...(minSilence !== undefined ? { minSilenceSeconds: minSilence } : {}),
        },
  );
  try {
    return recognizerVad ? await levelledSpeech(vad, pcm) : await diarizationSpeech(pcm, vad, []);
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
