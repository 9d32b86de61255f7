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
  })
  .meta({ id: 'SpeechRequest' });

export type SpeechRequest = z.infer<typeof SpeechRequest>;
