import { bestKnownVoice } from '../speakers/project-speakers';
import type { VoiceMatcher } from '../speakers/voice-matching';
import { SAMPLE_RATE, type Recognizer } from '../speech/types';
import { chunkProfiles, type ChunkProfiles } from './chunk-profiles';

/** A project speaker with an MLLR transform (speakers/speaker-adaptation.ts), and MAP means where corrections made them. */
export interface AdaptedSpeaker {
  id: string;
  profile: number[];
  transform: string;
  /** Means with the transform in them: used instead of the transform when present. */
  means?: string;
}

export interface AdaptationUse {
  /** Chunks decoded, and those decoded with a speaker's transform. */
  chunks: number;
  speakers: Array<{ speaker_id: string; chunks: number; seconds: number }>;
  /** Time spent measuring the chunks' voice profiles (the request's, shared with its other wrappers), in ms. */
  profileMs: number;
}

/**
 * The recognizer with each chunk decoded under the transform of the project speaker it sounds like: the
 * chunk's voice profile (the diarizer's features, span-profile.ts) against the adapted speakers' profiles,
 * best match only, at the matcher's threshold; no match → the un-adapted model. Chunks come from the VAD
 * before diarization has run, so this is the only speaker evidence there is at decoding time.
 */
export function adaptingRecognizer(
  recognizer: Recognizer,
  speakers: readonly AdaptedSpeaker[],
  matcher: VoiceMatcher,
  profiles: ChunkProfiles = chunkProfiles(),
): { recognizer: Recognizer; use(): AdaptationUse } {
  const used = new Map<string, { chunks: number; seconds: number }>();
  let chunks = 0;
  return {
    recognizer: {
      id: recognizer.id,
      writesText: recognizer.writesText,
      recognize: (pcm, options = {}) => {
        chunks++;
        const seconds = pcm.length / SAMPLE_RATE;
        const profile = profiles.of(pcm);
        const { best, matched } = profile ? bestKnownVoice(profile, speakers, new Set(), matcher) : { best: null, matched: false };
        if (!best || !matched) return recognizer.recognize(pcm, options);
        const entry = used.get(best.id) ?? { chunks: 0, seconds: 0 };
        entry.chunks++;
        entry.seconds += seconds;
        used.set(best.id, entry);
        // With means the recognizer decodes by them (the transform is in them), keeping the transform to fall back on.
        return recognizer.recognize(pcm, { ...options, mllr: best.transform, ...(best.means ? { means: best.means } : {}) });
      },
      close: async () => {},
    },
    use: () => ({
      chunks,
      speakers: [...used].map(([speaker_id, u]) => ({ speaker_id, chunks: u.chunks, seconds: Math.round(u.seconds * 10) / 10 })),
      profileMs: Math.round(profiles.ms()),
    }),
  };
}
