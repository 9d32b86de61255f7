import type { SpeakerPitch } from '../../../shared/schemas';
import { pitchTrack } from '../prosody/pitch';

export type { SpeakerPitch };

/**
 * Adult speaking F0 clusters around 85–155 Hz for men's voices and 165–255 Hz for women's (Titze,
 * Principles of Voice Production; Baken & Orlikoff): a median below 150 Hz reads as a male voice, above
 * 170 Hz as a female one. The band between, and children, falsetto, whispered or heavily processed
 * speech, are where a pitch threshold is wrong or cannot say; there the dub keeps the service's default.
 */
export const MALE_BELOW_HZ = 150;
export const FEMALE_ABOVE_HZ = 170;
/** Less voiced speech than this gives no estimate (a few words' median is too easily off by an octave). */
export const MIN_VOICED_SECONDS = 2;
/** At most this much of a speaker's lines is tracked: the median has settled long before. */
export const MAX_TRACKED_SECONDS = 30;
/** Pitch range tracked: Praat's usual 75 Hz floor, a ceiling above any speaking voice. */
const FLOOR_HZ = 75;
const CEILING_HZ = 500;

/** The gender a median speaking pitch suggests (null in the band between, or without a median). */
export function genderFromPitch(medianF0: number | null, voicedSeconds: number): SpeakerPitch['gender'] {
  if (medianF0 === null || voicedSeconds < MIN_VOICED_SECONDS) return null;
  if (medianF0 < MALE_BELOW_HZ) return 'male';
  if (medianF0 > FEMALE_ABOVE_HZ) return 'female';
  return null;
}

/**
 * A speaker's pitch from stretches of their own audio (mono, any rate): each is tracked with the project's
 * Praat-equivalent pitch tracker, and the median is taken over every voiced frame of all of them.
 */
export function speakerPitch(stretches: readonly Float32Array[], sampleRate: number): SpeakerPitch {
  const f0: number[] = [];
  let step = 0;
  for (const pcm of stretches) {
    const track = pitchTrack(pcm, sampleRate, { floor: FLOOR_HZ, ceiling: CEILING_HZ });
    step = track.timeStep;
    for (const hz of track.f0) if (hz > 0) f0.push(hz);
  }
  f0.sort((a, b) => a - b);
  const median = f0.length ? (f0.length % 2 ? f0[(f0.length - 1) / 2]! : (f0[f0.length / 2 - 1]! + f0[f0.length / 2]!) / 2) : null;
  const voicedSeconds = f0.length * step;
  return { median_f0: median === null ? null : Math.round(median * 10) / 10, voiced_seconds: Math.round(voicedSeconds * 100) / 100, gender: genderFromPitch(median, voicedSeconds) };
}
