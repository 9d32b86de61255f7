import type { ServiceConfig } from '../config';
import type { EngineDescriptor } from './registry';
import { pocketSphinxAvailable } from '../speech/recognition/pocketsphinx/model';

export const POCKETSPHINX_ID = 'pocketsphinx-en-us';
export const TRANSCRIPTION_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt', 'diarized_json'];

/**
 * Every engine this build knows. Only those whose programs and model files are present are listed by
 * the API; better recognizers plug in here with a higher rank and take over the OpenAI aliases.
 */
export function installedEngines(env: NodeJS.ProcessEnv, _config: ServiceConfig): EngineDescriptor[] {
  return [
    {
      model: {
        id: POCKETSPHINX_ID,
        kind: 'stt',
        tier: 'free',
        supports_streaming: true,
        supports_cloning: false,
        supports_diarization: true,
        formats: TRANSCRIPTION_FORMATS,
        default_voice: '',
        aliases: ['pocketsphinx'],
      },
      rank: 10,
      languages: ['en'],
      missing: () => {
        const availability = pocketSphinxAvailable(env);
        return availability.ok ? null : (availability.missing ?? []).join('; ');
      },
      installHint: 'Install it with: apt-get install -y pocketsphinx pocketsphinx-en-us (or set TAKELINE_POCKETSPHINX_MODEL_DIR).',
    },
  ];
}
