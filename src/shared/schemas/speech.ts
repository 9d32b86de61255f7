import { z } from 'zod';

export const SPEECH_RESPONSE_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;

/** Longest `input` of `POST /v1/audio/speech` (OpenAI's limit). */
export const SPEECH_INPUT_MAX = 4096;

/** `POST /v1/audio/speech`, OpenAI's request body. */
export const SpeechRequest = z
  .strictObject({
    model: z.string().min(1).max(100).meta({ description: 'A `tts` model id or alias from `/v1/audio/models`; `tts-1`, `tts-1-hd` and `gpt-4o-mini-tts` name the most natural installed one', example: 'tts-1' }),
    input: z
      .string()
      .max(SPEECH_INPUT_MAX)
      .refine((s) => s.trim().length > 0, { message: 'Input should not be empty' })
      .meta({ description: `The text to speak, up to ${SPEECH_INPUT_MAX} characters`, example: 'The quick brown fox jumps over the lazy dog.' }),
    voice: z
      .union([z.string().min(1).max(100), z.strictObject({ id: z.string().min(1).max(100) })])
      .meta({ description: "A voice id of the model (see its `voices`), or one of OpenAI's names (alloy, ash, ballad, cedar, coral, echo, fable, marin, nova, onyx, sage, shimmer, verse), mapped to the model's voice of the same gender", example: 'slt' }),
    instructions: z.string().max(4096).optional().meta({ description: 'Accepted for compatibility; these engines cannot follow style instructions' }),
    response_format: z.enum(SPEECH_RESPONSE_FORMATS).default('mp3').meta({ description: '24 kHz mono; `pcm` is raw 16-bit little-endian samples' }),
    speed: z.number().min(0.25).max(4).default(1).meta({ description: 'Speaking rate, 0.25–4 (1 is the voice\'s own)' }),
    stream_format: z.enum(['audio']).optional().meta({ description: 'Only `audio`: the audio streams as it is synthesized, sentence by sentence' }),
    timestamp_granularities: z
      .array(z.enum(['word']))
      .min(1)
      .optional()
      .meta({ description: "An extension OpenAI does not have: `[\"word\"]` answers JSON (`SpeechWithWords`) with the whole audio in base64 and each word's start and end, from the engine's own phone timings (festival's voices) or else a forced alignment of the audio (PocketSphinx). Not streamed." }),
  })
  .meta({ id: 'SpeechRequest' });

export type SpeechRequest = z.infer<typeof SpeechRequest>;

export const SpokenWordTiming = z.object({
  word: z.string().meta({ description: 'A word of the input as written (punctuation off); a token the engine read as several words ("$5") is one' }),
  start: z.number().meta({ description: 'Seconds from the start of the audio' }),
  end: z.number(),
});

export const SpeechWithWords = z
  .object({
    audio: z.string().meta({ description: 'The audio in `format`, base64' }),
    format: z.enum(SPEECH_RESPONSE_FORMATS),
    sample_rate: z.number().int().meta({ description: 'Of the audio as encoded (24000)' }),
    duration: z.number().meta({ description: 'Seconds' }),
    voice: z.string().meta({ description: 'The voice that spoke, `<model>/<voice>`' }),
    timings: z.enum(['engine', 'alignment']).meta({ description: "`engine`: the voice's own phone timings; `alignment`: a forced alignment of the audio" }),
    words: z.array(SpokenWordTiming),
  })
  .meta({ id: 'SpeechWithWords' });

export type SpeechWithWords = z.infer<typeof SpeechWithWords>;
