import type { ServiceConfig } from '../config';
import type { EngineDescriptor } from './registry';
import { localRecognizerModel } from './recognizer-listing';
import { pocketSphinxAvailable } from '../speech/recognition/pocketsphinx/model';
import { whisperModelsDir } from './whisper/catalogue';
import { teamWhisperEngines, whisperEngines } from './whisper/engines';
import type { TeamWhisperModels } from './whisper/team-models';

export const POCKETSPHINX_ID = 'pocketsphinx-en-us';
export { localRecognizerModel, TRANSCRIPTION_FORMATS } from './recognizer-listing';

/**
 * Every engine this build knows. Only those whose programs and model files are present are listed by
 * the API; better recognizers plug in here with a higher rank and take over the OpenAI aliases. Call it
 * for each listing (ModelRegistry does): Whisper models appear as they are downloaded.
 */
export function installedEngines(env: NodeJS.ProcessEnv, config: ServiceConfig, teamWhisper?: TeamWhisperModels): EngineDescriptor[] {
  return [
    {
      model: localRecognizerModel(POCKETSPHINX_ID, ['pocketsphinx']),
      rank: 10,
      languages: ['en'],
      missing: () => {
        const availability = pocketSphinxAvailable(env);
        return availability.ok ? null : (availability.missing ?? []).join('; ');
      },
      installHint: 'Install it with: apt-get install -y pocketsphinx pocketsphinx-en-us (or set TAKELINE_POCKETSPHINX_MODEL_DIR).',
    },
    // Whisper (whisper.cpp) models, ranked above PocketSphinx once downloaded; read on every listing (a team's: as
    // its database records them, read by the registry's refresh).
    ...(teamWhisper ? teamWhisperEngines(teamWhisper) : whisperEngines(whisperModelsDir(config))),
  ];
}
