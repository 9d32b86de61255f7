import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../recognition/pocketsphinx/model';
import { decodeWav } from '../../media/wav';
import { ProcessPool } from '../../process-pool';
import { FestivalExited, FestivalProcess } from './festival-process';
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

export function festival(env: NodeJS.ProcessEnv): string {
  if (env.TAKELINE_FESTIVAL) return env.TAKELINE_FESTIVAL;
  // Before the warm process the service ran festival's `text2wave` script (TAKELINE_TEXT2WAVE, still honoured):
  // the program sits beside it.
  if (env.TAKELINE_TEXT2WAVE) return path.join(path.dirname(env.TAKELINE_TEXT2WAVE), 'festival');
  return 'festival';
}

/** What is missing for the HTS voice, or null when it can run (cheap file checks). */
export function festivalHtsMissing(env: NodeJS.ProcessEnv): string | null {
  const missing: string[] = [];
  if (!findOnPath(festival(env), env)) missing.push(`program ${festival(env)} (Debian package festival, or set TAKELINE_FESTIVAL)`);
  if (!fs.existsSync(SLT_HTS_VOICE)) missing.push(`voice ${SLT_HTS_VOICE} (Debian package festvox-us-slt-hts)`);
  return missing.length ? missing.join('; ') : null;
}

/** Festival processes kept per voice: two texts are spoken at once (a dub renders two lines at a time). */
const FESTIVAL_PROCESSES = Math.min(2, Math.max(1, os.availableParallelism()));
/** An idle festival (about 25 MB with the HTS voice) ends after this long; the next text starts it again. */
const FESTIVAL_IDLE_SECONDS = 600;

/**
 * Festival's HTS voice, spoken by festival processes kept running with the voice loaded (festival-process.ts):
 * starting festival and loading its lexicon and voice took most of a short text's time. A process that
 * crashes is replaced by the next text; a text whose process died under it is spoken again by a fresh one.
 * The speaking rate is the HTS engine's own `-r` (durations scaled in the model, pitch unchanged).
 */
export function createFestivalHts(env: NodeJS.ProcessEnv): Voice {
  const pools = new Map<string, ProcessPool<FestivalProcess>>();
  const poolFor = (voiceFunction: string) => {
    let pool = pools.get(voiceFunction);
    if (!pool) {
      pool = new ProcessPool(() => new FestivalProcess({ program: festival(env), voiceFunction, env }), FESTIVAL_PROCESSES, FESTIVAL_IDLE_SECONDS);
      pools.set(voiceFunction, pool);
    }
    return pool;
  };
  return {
    id: FESTIVAL_HTS_ID,
    async synthesize(text, options): Promise<SynthesizedSpeech> {
      const fn = FESTIVAL_VOICE_FUNCTIONS[options.voice];
      if (!fn) throw new SynthesisError(`festival-hts has no voice "${options.voice}"`);
      const speak = () => poolFor(fn).run((warm) => warm.speak(text, options.speed ?? 1, options.signal), options.signal);
      // A process that died (killed, crashed) fails the text it was given, at most once each: every process may
      // have died unseen (both killed at once), so the text may meet each before a fresh one speaks it.
      let bytes: Buffer | null = null;
      for (let attempt = 0; bytes === null; attempt++) {
        try {
          bytes = await speak();
        } catch (error) {
          if (!(error instanceof FestivalExited) || options.signal?.aborted || attempt === FESTIVAL_PROCESSES) throw error;
        }
      }
      const wav = decodeWav(bytes);
      return { samples: wav.samples, sampleRate: wav.sampleRate };
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}
