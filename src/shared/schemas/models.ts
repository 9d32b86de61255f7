import { z } from 'zod';

export const VoiceInfo = z
  .object({
    id: z.string().meta({ description: 'Voice name within the model; a dub names it `<model id>/<voice id>`', example: 'slt' }),
    gender: z.enum(['female', 'male']),
    language: z.string().meta({ description: 'BCP 47 tag', example: 'en-US' }),
    sample_rate: z.number().int().meta({ description: 'Rate the engine speaks at (hertz)' }),
    description: z.string(),
  })
  .meta({ id: 'VoiceInfo' });

export const SpeechModel = z
  .object({
    id: z.string(),
    kind: z.string().meta({ description: '`stt` for recognizers; `tts` for voices' }),
    tier: z.string().meta({ description: '`free`: runs locally at no cost' }),
    supports_streaming: z.boolean(),
    supports_cloning: z.boolean(),
    supports_diarization: z.boolean(),
    formats: z.array(z.string()),
    default_voice: z.string(),
    aliases: z.array(z.string()),
    voices: z.array(VoiceInfo).optional().meta({ description: 'The voices of a `tts` model' }),
  })
  .meta({ id: 'SpeechModel' });

export const SpeechModelList = z.object({ data: z.array(SpeechModel) }).meta({ id: 'SpeechModelList' });

export const OpenAIModel = z
  .object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() })
  .meta({ id: 'OpenAIModel' });
export const OpenAIModelList = z
  .object({ object: z.literal('list'), data: z.array(OpenAIModel) })
  .meta({ id: 'OpenAIModelList' });

export type SpeechModel = z.infer<typeof SpeechModel>;
export type VoiceInfo = z.infer<typeof VoiceInfo>;
