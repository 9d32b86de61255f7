import type { Span } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import type { StreamingVoiceActivityDetector } from '../speech/vad/silero';

/**
 * Voice-activity settings for diarization, chosen on ../shared/audio/diarization (bench/diarization,
 * `--vad silero --vad-threshold 0.2 --vad-min-silence 1`): on quiet meeting mixes the recognizer's VAD
 * (0.5/0.35, 0.3 s) misses a quarter of the speech (trn DER 29.0%); a lower threshold on level-normalised
 * audio finds more of it (trn DER 24.6%). Recognition keeps its own settings, tuned for WER.
 */
export const DIARIZATION_VAD = {
  threshold: 0.2,
  negThreshold: 0.05,
  minSilenceSeconds: 1,
  minSpeechSeconds: 0.25,
  speechPadSeconds: 0.03,
};

const TARGET_PEAK = 0.95;

/**
 * Speech spans for the diarizer: the recording scaled to a 0.95 peak, fed to a detector with
 * DIARIZATION_VAD in one-second blocks (no full-length copy). Falls back to `speech` when it finds none.
 */
export async function diarizationSpeech(
  pcm: Float32Array,
  vad: StreamingVoiceActivityDetector,
  speech: Span[],
  signal?: AbortSignal,
): Promise<Span[]> {
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
  if (peak === 0) return speech;
  const gain = TARGET_PEAK / peak;
  const stream = vad.stream();
  const spans: Span[] = [];
  for (let start = 0; start < pcm.length; start += SAMPLE_RATE) {
    signal?.throwIfAborted();
    const block = pcm.slice(start, Math.min(pcm.length, start + SAMPLE_RATE));
    for (let i = 0; i < block.length; i++) block[i]! *= gain;
    spans.push(...(await stream.push(block)));
  }
  spans.push(...(await stream.finish()));
  return spans.length ? spans : speech;
}
