import { z } from 'zod';
import { Timestamp, Uuid } from './common';
import { Media } from './media';

export const SESSION_STATUSES = ['queued', 'running', 'complete', 'failed'] as const;
export const SessionStatus = z.enum(SESSION_STATUSES);

export const MediaFormat = z
  .object({
    container: z.string().meta({ description: 'Container as ffprobe names it, e.g. flac, wav, mov,mp4,m4a,3gp,3g2,mj2' }),
    codec: z.string().nullable().meta({ description: 'Codec of the first audio stream; null when there is none' }),
    sample_rate: z.number().int().nullable(),
    channels: z.number().int().nullable(),
    size_bytes: z.number().int(),
    content_type: z.string().meta({ description: 'MIME type the original is served with' }),
    has_video: z.boolean(),
  })
  .meta({ id: 'MediaFormat' });

export const TranscriptWord = z
  .object({
    word: z.string(),
    start: z.number(),
    end: z.number(),
    confidence: z.number(),
    speaker: z.string(),
  })
  .meta({ id: 'TranscriptWord' });

export const TranscriptSegment = z
  .object({
    id: z.number().int(),
    speaker: z.string(),
    start: z.number(),
    end: z.number(),
    text: z.string(),
    words: z.array(TranscriptWord),
    confirmed: z.literal(true).optional().meta({
      description:
        'Present when an editor saved this whole line (PATCH without a word range): a person checked every word of it against the audio. Its words keep the recognizer\'s `confidence`; the studio no longer shades them doubtful',
    }),
  })
  .meta({ id: 'TranscriptSegment' });

export const SessionTranscript = z
  .object({
    text: z.string(),
    speakers: z.array(z.string()),
    segments: z.array(TranscriptSegment),
    engine: z.string(),
    adaptation: z
      .object({
        chunks: z.number().int().meta({ description: 'Chunks decoded' }),
        speakers: z.array(
          z.object({
            speaker_id: Uuid,
            chunks: z.number().int().meta({ description: "Chunks decoded with this project speaker's transform" }),
            seconds: z.number(),
          }),
        ),
        within_recording: z
          .object({
            voices: z.number().int().meta({ description: 'Voices told apart while decoding' }),
            chunks: z.number().int().meta({
              description: "Chunks decoded with a transform fitted to their voice's earlier chunks (a project speaker's transform replaces it where a chunk matched one)",
            }),
            transforms: z.number().int().meta({ description: 'Transforms estimated' }),
          })
          .optional()
          .meta({ description: 'Present when chunks were decoded with a transform fitted inside this recording' }),
      })
      .optional()
      .meta({
        description:
          'Present when an acoustic adaptation decoded part of this recording: a project speaker\'s (which chunks sounded like them and were decoded with it) or one fitted inside the recording',
      }),
  })
  .meta({ id: 'SessionTranscript' });

export const SessionSummary = z
  .object({
    id: Uuid,
    project: z.object({ id: Uuid, key: z.string(), name: z.string() }),
    file_name: z.string(),
    duration: z.number().meta({ description: 'Length in seconds' }),
    format: MediaFormat,
    created_at: Timestamp,
    status: SessionStatus,
    progress: z.number().meta({ description: 'How far processing is, 0 to 1' }),
    stage: z.string().nullable(),
    error: z.string().nullable().meta({ description: 'Why processing failed' }),
    language: z.string(),
    media: Media.nullable(),
  })
  .meta({ id: 'SessionSummary' });

export const SpeakerMapEntry = z
  .object({
    speaker_id: Uuid,
    number: z.number().int().meta({ description: 'The project speaker\'s number: given in the order the project first heard its voices (a recording\'s new voices in their order of first appearance), kept for identity' }),
    name: z.string(),
    similarity: z.number().meta({ description: 'Voice similarity to the project speaker, 0 to 1' }),
    matched: z.boolean().meta({ description: 'True when the voice matched a speaker the project already knew' }),
    // The studio colours a match's certainty from the service's own threshold, not fixed bands.
    match_threshold: z.number().meta({
      description:
        'The similarity from which the service takes a voice to be a speaker the project already knew (its current threshold; ' +
        'chosen in bench/speakers). A match is surer the further its similarity lies above it',
    }),
    first_heard_in: z
      .object({ session_id: Uuid, file_name: z.string() })
      .meta({
        description:
          "The recording the project first heard this voice in (the oldest one naming it). `number` is the voice's identity in the project, counted over all its recordings; this says where that count was made",
      }),
  })
  .meta({ id: 'SpeakerMapEntry' });

export const Session = SessionSummary.extend({
  transcript: SessionTranscript.nullable(),
  speaker_map: z.record(z.string(), SpeakerMapEntry).meta({ description: 'Recording speaker label → project speaker' }),
}).meta({ id: 'Session' });

export const SessionPage = z
  .object({ data: z.array(SessionSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'SessionPage' });

export const AudioAddress = z
  .object({ url: z.string().meta({ description: 'Signed address of the original audio' }), expires_in: z.number().int() })
  .meta({ id: 'AudioAddress' });

export const Peaks = z
  .object({ duration: z.number(), peaks_per_second: z.number(), peaks: z.array(z.number()) })
  .meta({ id: 'Peaks' });

export type Session = z.infer<typeof Session>;
export type SessionSummary = z.infer<typeof SessionSummary>;
export type SessionStatus = z.infer<typeof SessionStatus>;
export type MediaFormat = z.infer<typeof MediaFormat>;
