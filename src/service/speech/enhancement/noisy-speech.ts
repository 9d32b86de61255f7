/**
 * Whether a stretch of speech is noisy enough to denoise before recognition. The measure is the analysis' own
 * (speech/quality): speech power over the noise between the speech, per FFT bin. A denoiser also takes a little of
 * the speech, which costs words on clean recordings (every chunk denoised: 394 → 404 errors on the tuning half),
 * so clean chunks pass untouched. The threshold was chosen on the tuning half (bench/asr/README.md, "Background
 * noise") among the `noise` quality issue's 20 dB, 25, 30 dB and always: at 20 dB a recording made 20 dB over white
 * noise reads 17.6–21.4 dB per chunk and is mostly left noisy; 25 and 30 dB tie over clean, 20 dB white-noise and
 * 10 dB pub-noise versions of the half, and 25 dB touches fewer of the clean chunks (2 of 68, against 10).
 */
import { speechSnrDb } from '../quality/line-quality';
import { noiseProfile } from '../quality/noise-profile';
import { clip } from '../quality/spans';
import { SAMPLE_RATE, type Span } from '../types';
import type { Denoiser } from './types';

export const NOISY_BELOW_SNR_DB = 25;

/** SNR of the speech in `pcm` (speech spans in its own clock), dB; null when there is no speech. */
export function chunkSnrDb(pcm: Float32Array, speech: Span[]): number | null {
  if (speech.length === 0) return null;
  const whole = { start: 0, end: pcm.length / SAMPLE_RATE };
  return speechSnrDb(pcm, SAMPLE_RATE, whole, speech, noiseProfile(pcm, SAMPLE_RATE, speech));
}

/** The chunk as the recognizer should hear it: denoised when its speech is under the noise threshold. */
export async function denoisedIfNoisy(
  denoiser: Denoiser,
  pcm: Float32Array,
  speech: Span[],
  belowDb: number = NOISY_BELOW_SNR_DB,
): Promise<{ pcm: Float32Array; snrDb: number | null; denoised: boolean }> {
  const snrDb = chunkSnrDb(pcm, speech);
  if (snrDb === null || snrDb >= belowDb) return { pcm, snrDb, denoised: false };
  return { pcm: await denoiser.denoise(pcm), snrDb, denoised: true };
}

/** Spans of `speech` (recording clock) that fall in `within`, in `within`'s own clock. */
export function speechWithin(speech: Span[], within: Span): Span[] {
  return clip(speech, within).map((s) => ({ start: s.start - within.start, end: s.end - within.start }));
}
