import { findOnPath } from '../recognition/pocketsphinx/model';
import { decodeWav } from '../../media/wav';
import { runProgram } from '../../media/run-program';
import { SynthesisError, type SynthesizedSpeech, type Voice, type VoiceEntry } from './voice';

export const ESPEAK_NG_ID = 'espeak-ng';

/** espeak-ng's default rate in words per minute; its accepted range is 80–450. */
const DEFAULT_WPM = 175;

export const ESPEAK_NG_VOICES: Array<VoiceEntry & { espeak: string }> = [
  { id: 'en-us', espeak: 'en-us', gender: 'male', language: 'en-US', sample_rate: 22050, description: 'espeak-ng US English (formant synthesis)' },
  { id: 'en-us-f', espeak: 'en-us+f3', gender: 'female', language: 'en-US', sample_rate: 22050, description: 'espeak-ng US English, female variant f3' },
  { id: 'en-gb', espeak: 'en-gb', gender: 'male', language: 'en-GB', sample_rate: 22050, description: 'espeak-ng British English' },
  { id: 'en-gb-f', espeak: 'en-gb+f4', gender: 'female', language: 'en-GB', sample_rate: 22050, description: 'espeak-ng British English, female variant f4' },
];

/** Speeds espeak-ng reaches by itself (80 and 450 words per minute). */
export const ESPEAK_NG_SPEED: [number, number] = [80 / DEFAULT_WPM, 450 / DEFAULT_WPM];

function program(env: NodeJS.ProcessEnv): string {
  return env.TAKELINE_ESPEAK_NG || 'espeak-ng';
}

export function espeakNgMissing(env: NodeJS.ProcessEnv): string | null {
  return findOnPath(program(env), env) ? null : `program ${program(env)} (Debian package espeak-ng, or set TAKELINE_ESPEAK_NG)`;
}

/** espeak-ng as a subprocess: text on stdin (never parsed as options), WAV on stdout. */
export function createEspeakNg(env: NodeJS.ProcessEnv): Voice {
  return {
    id: ESPEAK_NG_ID,
    async synthesize(text, options): Promise<SynthesizedSpeech> {
      const voice = ESPEAK_NG_VOICES.find((v) => v.id === options.voice);
      if (!voice) throw new SynthesisError(`espeak-ng has no voice "${options.voice}"`);
      const wpm = Math.round(DEFAULT_WPM * (options.speed ?? 1));
      const { stdout } = await runProgram(program(env), ['-v', voice.espeak, '-s', String(wpm), '--stdout'], {
        stdin: text,
        signal: options.signal,
        env,
      });
      const wav = decodeWav(stdout);
      return { samples: wav.samples, sampleRate: wav.sampleRate };
    },
    async close() {},
  };
}
