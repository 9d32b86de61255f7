import type { Session } from '../../shared/schemas';
import type { Transcript } from './types';

/** A transcript as clients read it: its stored working fields (profiles, checkpoints' marks) left out. */
export function publicTranscript(transcript: Transcript): NonNullable<Session['transcript']> {
  return {
    text: transcript.text,
    speakers: transcript.speakers,
    engine: transcript.engine,
    segments: transcript.segments.map(({ id, speaker, start, end, text, words, confirmed }) => ({ id, speaker, start, end, text, words, ...(confirmed ? { confirmed } : {}) })),
    ...(transcript.adaptation ? { adaptation: transcript.adaptation } : {}),
  };
}
