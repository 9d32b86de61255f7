/**
 * Text-to-speech behind one small interface. An engine (festival's HTS voice, SVOX Pico, flite,
 * espeak-ng) speaks text in one of its voices and returns mono float PCM at its own rate; everything
 * downstream (speed beyond the engine's range, encoding, fitting into a dub line) works on that.
 */

export type VoiceGender = 'female' | 'male';

/** One voice of an engine, as `GET /v1/audio/models` lists it. */
export interface VoiceEntry {
  /** Name within the engine, e.g. `slt`. A dub refers to it as `<engine id>/<name>`. */
  id: string;
  gender: VoiceGender;
  /** BCP 47 tag, e.g. `en-US`. */
  language: string;
  /** Rate the engine speaks this voice at. */
  sample_rate: number;
  description: string;
}

export interface SynthesisOptions {
  /** A voice id of this engine. */
  voice: string;
  /** Speaking rate, 1 = the voice's own; callers keep it inside the engine's `nativeSpeed`. */
  speed?: number;
  signal?: AbortSignal;
}

/** A word of the text and when it is heard in the audio (seconds from its start). */
export interface SpokenWord {
  word: string;
  start: number;
  end: number;
}

/** Mono float PCM in [-1, 1] at the voice's rate. */
export interface SynthesizedSpeech {
  samples: Float32Array;
  sampleRate: number;
  /** The words' times from the engine's own phone timings, when it gives them (festival's voices). */
  words?: SpokenWord[];
}

/** A text-to-speech engine. Implementations start their program or WebAssembly module on first use. */
export interface Voice {
  readonly id: string;
  synthesize(text: string, options: SynthesisOptions): Promise<SynthesizedSpeech>;
  close(): Promise<void>;
}

/** What an engine cannot say: text it rejects, or a failure of its program. Safe to show to a client. */
export class SynthesisError extends Error {}
