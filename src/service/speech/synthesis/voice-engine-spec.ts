import type { Voice, VoiceEntry } from './voice';

/** One text-to-speech engine this build knows, whether or not it is installed here. */
export interface VoiceEngineSpec {
  id: string;
  /** Higher is more natural; the best installed engine gives the default voice and OpenAI's model names. */
  rank: number;
  aliases: string[];
  voices: VoiceEntry[];
  defaultVoice: string;
  /** Speeds the engine reaches by itself; beyond them the registry time-stretches its output. */
  nativeSpeed: [number, number];
  licence: string;
  /** What is missing, or null when the engine can run (cheap checks, run on every listing). */
  missing(): string | null;
  installHint: string;
  /** Builds the engine; it starts its program or module on its first call. */
  create(): Voice;
}
