import type { Span } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import type { StreamingVoiceActivityDetector } from '../speech/vad/silero';
import { gainToPeak, peakAmplitude, scaledCopy } from '../dsp/levels';

/**
 * Voice-activity settings for diarization. Thresholds are Silero's own recommendation (enter 0.5, leave
 * 0.15 lower), not fitted here: on level-normalised audio they score as the earlier fitted 0.2/0.05 did on
 * the tuning half of ../shared/audio/diarization (diarized_json DER 17.7% against 17.6%; test half 28.7 /
 * 28.3%), and a constant fitted to a few files did not hold on unseen meetings. The 1 s minimum
 * silence is a tuning-half choice (trn01 aside, where nothing is recognised: 0.1 s 24.2%, 0.5 s 20.0%,
 * 1 s 16.1%; 2 s 15.0% from one file's pause, not taken): a turn keeps its short pauses, as the meeting
 * references do, and a diarized_json segment spans its turn. Recognition keeps its own VAD settings, tuned for WER.
 */
export const DIARIZATION_VAD = {
  threshold: 0.5,
  negThreshold: 0.35,
  minSilenceSeconds: 1,
  minSpeechSeconds: 0.25,
  speechPadSeconds: 0.03,
};

/**
 * Speech spans for the diarizer: the recording scaled to a 0.95 peak (NORMALISED_PEAK), fed to a detector with
 * DIARIZATION_VAD in one-second blocks (no full-length copy). Falls back to `speech` when it finds none.
 */
export async function diarizationSpeech(
  pcm: Float32Array,
  vad: StreamingVoiceActivityDetector,
  speech: Span[],
  signal?: AbortSignal,
): Promise<Span[]> {
  const peak = peakAmplitude(pcm);
  if (peak === 0) return speech;
  const gain = gainToPeak(peak);
  const stream = vad.stream();
  const spans: Span[] = [];
  for (let start = 0; start < pcm.length; start += SAMPLE_RATE) {
    signal?.throwIfAborted();
    spans.push(...(await stream.push(scaledCopy(pcm.subarray(start, Math.min(pcm.length, start + SAMPLE_RATE)), gain))));
  }
  spans.push(...(await stream.finish()));
  return spans.length ? spans : speech;
}
