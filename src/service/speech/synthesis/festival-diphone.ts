import fs from 'node:fs';
import { createFestivalEngine, festivalProgramMissing, type FestivalVoiceSetup } from './festival-engine';
import type { Voice, VoiceEntry } from './voice';

export const FESTIVAL_DIPHONE_ID = 'festival-diphone';

/** Festival's male US English diphone voices as Debian ships them: its folder, package and voice function. */
const DIPHONE_VOICES: Array<VoiceEntry & { folder: string; debian: string; setup: FestivalVoiceSetup }> = [
  {
    id: 'kal',
    gender: 'male',
    language: 'en-US',
    sample_rate: 16000,
    description: 'CMU "kal", US English male, diphone (residual-excited LPC), 16 kHz',
    folder: '/usr/share/festival/voices/english/kal_diphone',
    debian: 'festvox-kallpc16k',
    setup: { voiceFunction: 'voice_kal_diphone', kind: 'diphone' },
  },
  {
    id: 'ked',
    gender: 'male',
    language: 'en-US',
    sample_rate: 16000,
    description: 'CMU "ked", US English male, diphone (residual-excited LPC), 16 kHz',
    folder: '/usr/share/festival/voices/english/ked_diphone',
    debian: 'festvox-kdlpc16k',
    setup: { voiceFunction: 'voice_ked_diphone', kind: 'diphone' },
  },
];

export const FESTIVAL_DIPHONE_VOICES: VoiceEntry[] = DIPHONE_VOICES.map(({ folder: _f, debian: _d, setup: _s, ...voice }) => voice);

/** What is missing for the diphone voices, or null when they can run (cheap file checks). */
export function festivalDiphoneMissing(env: NodeJS.ProcessEnv): string | null {
  const missing: string[] = [];
  const program = festivalProgramMissing(env);
  if (program) missing.push(program);
  for (const voice of DIPHONE_VOICES) if (!fs.existsSync(voice.folder)) missing.push(`voice ${voice.folder} (Debian package ${voice.debian})`);
  return missing.length ? missing.join('; ') : null;
}

/**
 * Festival's diphone voices, kept running like the HTS voice (festival-engine.ts). The speaking rate is
 * festival's `Duration_Stretch` (durations scaled, pitch unchanged).
 */
export function createFestivalDiphone(env: NodeJS.ProcessEnv): Voice {
  return createFestivalEngine(env, FESTIVAL_DIPHONE_ID, Object.fromEntries(DIPHONE_VOICES.map((v) => [v.id, v.setup])));
}
