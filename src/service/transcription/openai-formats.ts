import zlib from 'node:zlib';
import type { SpeakerTurn, Transcript } from '../speech/types';
import { diarizedExtents } from './diarized-segments';

/** OpenAI reports the language by name in verbose_json. */
const LANGUAGE_NAMES: Record<string, string> = { en: 'english' };

export function usageOf(transcript: Transcript) {
  // OpenAI bills audio by whole seconds; report the same unit.
  return { type: 'duration' as const, seconds: Math.ceil(transcript.duration) };
}

/** Whisper's compression ratio: text bytes over zlib-compressed bytes (repetitive text compresses well). */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / zlib.deflateSync(bytes).length;
}

export function jsonResponse(transcript: Transcript) {
  return { text: transcript.text, usage: usageOf(transcript) };
}

export interface VerboseOptions {
  words: boolean;
  segments: boolean;
  temperature: number;
  /** Null when the call kept nothing: the answer then names no session. */
  sessionId: string | null;
}

export function verboseJsonResponse(transcript: Transcript, options: VerboseOptions) {
  return {
    task: 'transcribe' as const,
    language: LANGUAGE_NAMES[transcript.language] ?? transcript.language,
    duration: transcript.duration,
    text: transcript.text,
    ...(options.segments
      ? {
          segments: transcript.segments.map((s) => ({
            id: s.id,
            // Whisper's seek is the 10 ms frame where the decoding window started.
            seek: Math.floor(s.start * 100),
            start: s.start,
            end: s.end,
            text: s.text,
            // The recognizer has no BPE tokens to report.
            tokens: [] as number[],
            temperature: options.temperature,
            avg_logprob: s.avgLogprob,
            compression_ratio: compressionRatio(s.text),
            // Segments are cut from stretches the voice activity detector found to be speech.
            no_speech_prob: s.noSpeechProb ?? 0,
            speaker: s.speaker,
          })),
        }
      : {}),
    ...(options.words ? { words: transcript.segments.flatMap((s) => s.words.map(({ word, start, end }) => ({ word, start, end }))) } : {}),
    usage: usageOf(transcript),
    ...(options.sessionId ? { session_id: options.sessionId } : {}),
  };
}

/**
 * `diarized_json` segments: each spans its speaker's turn as the diarizer found it (diarized-segments.ts),
 * so speech around and between the recognised words is attributed; without `turns`, the words' extents.
 */
export function diarizedSegments(transcript: Transcript, turns: readonly SpeakerTurn[] = []) {
  const extents = diarizedExtents(transcript.segments, turns);
  return transcript.segments.map((s, i) => ({
    type: 'transcript.text.segment' as const,
    id: `seg_${s.id}`,
    start: extents[i]!.start,
    end: extents[i]!.end,
    speaker: s.speaker,
    text: s.text,
  }));
}

export function diarizedJsonResponse(transcript: Transcript, turns: readonly SpeakerTurn[] = []) {
  return {
    task: 'transcribe' as const,
    duration: transcript.duration,
    text: transcript.text,
    segments: diarizedSegments(transcript, turns),
    usage: usageOf(transcript),
  };
}
