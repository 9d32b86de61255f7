import { profileOfSpans } from '../speech/speakers/span-profile';
import { SAMPLE_RATE } from '../speech/types';

/**
 * Each chunk's voice profile, measured once per request: the project's and the recording's adaptation
 * wrappers both ask for it, and the inner one gets the very chunk the outer one measured.
 */
export interface ChunkProfiles {
  /** Null when the chunk has no profile (under one frame, or not measurable). */
  of(pcm: Float32Array): number[] | null;
  /** Time spent measuring, in milliseconds. */
  ms(): number;
}

export function chunkProfiles(): ChunkProfiles {
  const measured = new WeakMap<Float32Array, number[] | null>();
  let ms = 0;
  return {
    of(pcm) {
      if (measured.has(pcm)) return measured.get(pcm)!;
      const started = performance.now();
      let profile: number[] | null;
      try {
        profile = profileOfSpans(pcm, [{ start: 0, end: pcm.length / SAMPLE_RATE }]);
      } catch {
        // A chunk whose profile cannot be measured decodes un-adapted.
        profile = null;
      }
      ms += performance.now() - started;
      measured.set(pcm, profile);
      return profile;
    },
    ms: () => ms,
  };
}
