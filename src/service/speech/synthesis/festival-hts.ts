import fs from 'node:fs';
import { createFestivalEngine, festivalProgramMissing } from './festival-engine';
import type { Voice, VoiceEntry } from './voice';

export { festival } from './festival-engine';

export const FESTIVAL_HTS_ID = 'festival-hts';

/** Where Debian's festvox-us-slt-hts puts the voice (festival finds it by name). */
const SLT_HTS_VOICE = '/usr/share/festival/voices/us/cmu_us_slt_arctic_hts/hts/cmu_us_slt_arctic_hts.htsvoice';

export const FESTIVAL_HTS_VOICES: VoiceEntry[] = [
  {
    id: 'slt',
    gender: 'female',
    language: 'en-US',
    sample_rate: 32000,
    description: 'CMU ARCTIC "slt", US English, HMM-based (HTS) statistical parametric voice',
  },
];

/** What is missing for the HTS voice, or null when it can run (cheap file checks). */
export function festivalHtsMissing(env: NodeJS.ProcessEnv): string | null {
  const missing: string[] = [];
  const program = festivalProgramMissing(env);
  if (program) missing.push(program);
  if (!fs.existsSync(SLT_HTS_VOICE)) missing.push(`voice ${SLT_HTS_VOICE} (Debian package festvox-us-slt-hts)`);
  return missing.length ? missing.join('; ') : null;
}

/**
 * Festival's HTS voice, kept running (festival-engine.ts). The speaking rate is the HTS engine's own `-r`
 * (durations scaled in the model, pitch unchanged).
 */
export function createFestivalHts(env: NodeJS.ProcessEnv): Voice {
  return createFestivalEngine(env, FESTIVAL_HTS_ID, { slt: { voiceFunction: 'voice_cmu_us_slt_arctic_hts', kind: 'hts' } });
}
