import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../recognition/pocketsphinx/model';
import { decodeWav } from '../../media/wav';
import { ProcessPool } from '../../process-pool';
import { FestivalExited, FestivalProcess, type FestivalOutput, type FestivalVoiceKind } from './festival-process';
import { parseFestivalWords } from './festival-words';
import { SynthesisError, type SynthesizedSpeech, type Voice } from './voice';

/** The festival program: TAKELINE_FESTIVAL, or the one beside TAKELINE_TEXT2WAVE, or `festival` on PATH. */
export function festival(env: NodeJS.ProcessEnv): string {
  if (env.TAKELINE_FESTIVAL) return env.TAKELINE_FESTIVAL;
  // Before the warm process the service ran festival's `text2wave` script (TAKELINE_TEXT2WAVE, still honoured):
  // the program sits beside it.
  if (env.TAKELINE_TEXT2WAVE) return path.join(path.dirname(env.TAKELINE_TEXT2WAVE), 'festival');
  return 'festival';
}

/** The program's part of what is missing for a festival voice, or null when it is there. */
export function festivalProgramMissing(env: NodeJS.ProcessEnv): string | null {
  return findOnPath(festival(env), env) ? null : `program ${festival(env)} (Debian package festival, or set TAKELINE_FESTIVAL)`;
}

/** How festival selects one of an engine's voices. */
export interface FestivalVoiceSetup {
  /** The Scheme function that selects the voice, e.g. `voice_cmu_us_slt_arctic_hts`. */
  voiceFunction: string;
  kind: FestivalVoiceKind;
}

/** Festival processes kept per voice: two texts are spoken at once (a dub renders two lines at a time). */
const FESTIVAL_PROCESSES = Math.min(2, Math.max(1, os.availableParallelism()));
/** An idle festival (about 25 MB with the HTS voice) ends after this long; the next text starts it again. */
const FESTIVAL_IDLE_SECONDS = 600;

/**
 * Festival voices spoken by festival processes kept running with the voice loaded (festival-process.ts):
 * starting festival and loading its lexicon and voice took most of a short text's time. A process that
 * crashes is replaced by the next text; a text whose process died under it is spoken again by a fresh one.
 */
export function createFestivalEngine(env: NodeJS.ProcessEnv, id: string, voices: Record<string, FestivalVoiceSetup>): Voice {
  const pools = new Map<string, ProcessPool<FestivalProcess>>();
  const poolFor = (setup: FestivalVoiceSetup) => {
    let pool = pools.get(setup.voiceFunction);
    if (!pool) {
      pool = new ProcessPool(() => new FestivalProcess({ program: festival(env), voiceFunction: setup.voiceFunction, kind: setup.kind, env }), FESTIVAL_PROCESSES, FESTIVAL_IDLE_SECONDS);
      pools.set(setup.voiceFunction, pool);
    }
    return pool;
  };
  return {
    id,
    async synthesize(text, options): Promise<SynthesizedSpeech> {
      const setup = Object.hasOwn(voices, options.voice) ? voices[options.voice] : undefined;
      if (!setup) throw new SynthesisError(`${id} has no voice "${options.voice}"`);
      const speak = () => poolFor(setup).run((warm) => warm.speak(text, options.speed ?? 1, options.signal), options.signal);
      // A process that died (killed, crashed) fails the text it was given, at most once each: every process may
      // have died unseen (both killed at once), so the text may meet each before a fresh one speaks it.
      let spoken: FestivalOutput | null = null;
      for (let attempt = 0; spoken === null; attempt++) {
        try {
          spoken = await speak();
        } catch (error) {
          if (!(error instanceof FestivalExited) || options.signal?.aborted || attempt === FESTIVAL_PROCESSES) throw error;
        }
      }
      const wav = decodeWav(spoken.wav);
      return { samples: wav.samples, sampleRate: wav.sampleRate, words: parseFestivalWords(spoken.words) };
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}
