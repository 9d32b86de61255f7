import fs from 'node:fs';
import { findOnPath } from '../recognition/pocketsphinx/model';
import { decodeWav } from '../../media/wav';
import { runProgram } from '../../media/run-program';
import { SynthesisError, type SynthesizedSpeech, type Voice, type VoiceEntry } from './voice';

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

const FESTIVAL_VOICE_FUNCTIONS: Record<string, string> = { slt: 'voice_cmu_us_slt_arctic_hts' };

function text2wave(env: NodeJS.ProcessEnv): string {
  return env.TAKELINE_TEXT2WAVE || 'text2wave';
}

/** What is missing for the HTS voice, or null when it can run (cheap file checks). */
export function festivalHtsMissing(env: NodeJS.ProcessEnv): string | null {
  const missing: string[] = [];
  if (!findOnPath(text2wave(env), env)) missing.push(`program ${text2wave(env)} (Debian package festival, or set TAKELINE_TEXT2WAVE)`);
  if (!fs.existsSync(SLT_HTS_VOICE)) missing.push(`voice ${SLT_HTS_VOICE} (Debian package festvox-us-slt-hts)`);
  return missing.length ? missing.join('; ') : null;
}

/**
 * Festival's HTS voice through `text2wave` (a subprocess per call: festival starts in ~0.1 s, and a
 * crash cannot take the service down). Text goes in on stdin, WAV comes out on stdout; the speaking rate
 * is the HTS engine's own `-r` (durations scaled in the model, pitch unchanged).
 */
export function createFestivalHts(env: NodeJS.ProcessEnv): Voice {
  return {
    id: FESTIVAL_HTS_ID,
    async synthesize(text, options): Promise<SynthesizedSpeech> {
      const fn = FESTIVAL_VOICE_FUNCTIONS[options.voice];
      if (!fn) throw new SynthesisError(`festival-hts has no voice "${options.voice}"`);
      const speed = options.speed ?? 1;
      const args = ['-eval', `(${fn})`];
      if (speed !== 1) args.push('-eval', `(set! hts_engine_params (append hts_engine_params (list (list "-r" ${speed.toFixed(4)}))))`);
      // Festival reads stdin as text to speak; a line break keeps the last word from being cut short.
      const { stdout } = await runProgram(text2wave(env), args, { stdin: `${text}\n`, signal: options.signal, env });
      const wav = decodeWav(stdout);
      return { samples: wav.samples, sampleRate: wav.sampleRate };
    },
    async close() {},
  };
}
