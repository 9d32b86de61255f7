import { InvalidInputError, issue } from '../errors';

/**
 * How many speakers the diarizer may find, from a request's hints: `min_speakers` / `max_speakers` as
 * pyannote and WhisperX take them, and OpenAI's `known_speaker_names[]`, whose count is a lower bound when
 * no minimum is given (each named speaker is expected to speak; others may too). A minimum above the
 * maximum is the caller's error, reported by the validation before this runs.
 */
export interface SpeakerHints {
  minSpeakers?: number;
  maxSpeakers?: number;
}

export function speakerHints(input: { min_speakers?: number; max_speakers?: number; known_speaker_names?: readonly string[] }): SpeakerHints {
  const named = input.known_speaker_names?.length ?? 0;
  let min = input.min_speakers ?? (named > 0 ? named : undefined);
  const max = input.max_speakers;
  // Names beyond an explicit maximum cannot all be separate voices: the maximum wins.
  if (min !== undefined && max !== undefined && input.min_speakers === undefined) min = Math.min(min, max);
  return { ...(min !== undefined ? { minSpeakers: min } : {}), ...(max !== undefined ? { maxSpeakers: max } : {}) };
}

/** 422 when both bounds are given and the minimum exceeds the maximum. */
export function assertSpeakerRange(input: { min_speakers?: number; max_speakers?: number }): void {
  if (input.min_speakers !== undefined && input.max_speakers !== undefined && input.min_speakers > input.max_speakers) {
    throw new InvalidInputError([issue(['body', 'min_speakers'], 'min_speakers must not exceed max_speakers', 'value_error', input.min_speakers)]);
  }
}
