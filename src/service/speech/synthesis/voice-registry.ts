import { SPEECH_RESPONSE_FORMATS, type SpeechModel } from '../../../shared/schemas';
import { OPENAI_SPEECH_ALIASES, type EngineDescriptor } from '../../models/registry';
import { wsolaStretch } from '../../dsp/wsola';
import { scaleWords } from './word-timings';
import type { VoiceEngineSpec } from './voice-engine-spec';
import type { SynthesizedSpeech, Voice, VoiceEntry, VoiceGender } from './voice';


/**
 * OpenAI's built-in voice names by the gender they are heard as, so clients written for it work unchanged:
 * each maps to a voice of the same gender (with OpenAI's model names, of the most natural engine that has
 * one), `alloy` (neutral) to the default voice.
 */
export const OPENAI_VOICE_GENDERS: Record<string, VoiceGender | null> = {
  alloy: null,
  ash: 'male',
  ballad: 'male',
  cedar: 'male',
  coral: 'female',
  echo: 'male',
  fable: 'male',
  marin: 'female',
  nova: 'female',
  onyx: 'male',
  sage: 'female',
  shimmer: 'female',
  verse: 'male',
};

/** A voice as dubs name it: `<engine id>/<voice id>`, e.g. `festival-hts/slt`. */
export function voiceRef(engine: string, voice: string): string {
  return `${engine}/${voice}`;
}

export type VoiceLookup =
  | { ok: true; spec: VoiceEngineSpec; voice: VoiceEntry }
  | { ok: false; reason: 'unknown_model' | 'not_installed' | 'unknown_voice' | 'no_voice_of_gender'; message: string };

/** The voice of `spec` a gender is spoken with: its default voice when of that gender, else its first one. */
function voiceOfGender(spec: VoiceEngineSpec, gender: VoiceGender): VoiceEntry | null {
  const byDefault = spec.voices.find((v) => v.id === spec.defaultVoice);
  return byDefault?.gender === gender ? byDefault : (spec.voices.find((v) => v.gender === gender) ?? null);
}

/**
 * The voice engines this service can run right now, loaded on first use and kept. Resolves OpenAI's and
 * our own model and voice names, and speaks at any speed (beyond an engine's own range by time-stretching
 * its output, which keeps the pitch).
 */
export class VoiceRegistry {
  private readonly engines = new Map<string, Voice>();

  constructor(
    private readonly specs: VoiceEngineSpec[],
    /** Releases what the engines share (the synthesis process). */
    private readonly release: () => Promise<void> = async () => undefined,
  ) {}

  installed(): VoiceEngineSpec[] {
    return this.specs.filter((s) => s.missing() === null).sort((a, b) => b.rank - a.rank);
  }

  /** Model descriptors for the model registry (`GET /v1/audio/models`). */
  descriptors(): EngineDescriptor[] {
    return this.specs.map((spec) => ({
      model: {
        id: spec.id,
        kind: 'tts',
        tier: 'free',
        supports_streaming: true,
        supports_cloning: false,
        supports_diarization: false,
        formats: [...SPEECH_RESPONSE_FORMATS],
        default_voice: spec.defaultVoice,
        aliases: spec.aliases,
        voices: spec.voices,
      } satisfies Omit<SpeechModel, 'aliases'> & { aliases: string[] },
      rank: spec.rank,
      languages: [],
      missing: () => spec.missing(),
      installHint: spec.installHint,
    }));
  }

  /** An installed engine by id, alias or OpenAI model name. */
  findModel(name: string): VoiceLookup | { ok: true; spec: VoiceEngineSpec } {
    const installed = this.installed();
    if (OPENAI_SPEECH_ALIASES.includes(name)) {
      if (installed[0]) return { ok: true, spec: installed[0] };
    }
    const spec = this.specs.find((s) => s.id === name || s.aliases.includes(name));
    if (spec && installed.includes(spec)) return { ok: true, spec };
    if (spec || OPENAI_SPEECH_ALIASES.includes(name)) {
      const hint = spec ? `${spec.missing()}. ${spec.installHint}` : 'No voice engine is installed.';
      return { ok: false, reason: 'not_installed', message: `The model "${name}" is not installed: missing ${hint}` };
    }
    const names = installed.flatMap((s) => [s.id, ...s.aliases]);
    return { ok: false, reason: 'unknown_model', message: `Unknown model "${name}". Installed voice models: ${[...names, ...OPENAI_SPEECH_ALIASES].join(', ')}.` };
  }

  /**
   * A voice of `spec` by its id (any case) or an OpenAI voice name (null when the name is neither, or when
   * `spec` has no voice of that name's gender).
   */
  findVoice(spec: VoiceEngineSpec, name: string): VoiceEntry | null {
    const lowered = name.toLowerCase();
    const own = spec.voices.find((v) => v.id.toLowerCase() === lowered);
    if (own) return own;
    if (!Object.hasOwn(OPENAI_VOICE_GENDERS, lowered)) return null;
    const gender = OPENAI_VOICE_GENDERS[lowered];
    return gender ? voiceOfGender(spec, gender) : spec.voices.find((v) => v.id === spec.defaultVoice)!;
  }

  /**
   * The engine and voice a speech request names. With OpenAI's model names an OpenAI voice name picks the
   * most natural installed engine that has a voice of its gender; a model named by id keeps its engine, and
   * one without a voice of the asked gender is refused, saying which engines have one.
   */
  speechVoice(model: string, name: string): VoiceLookup {
    const lowered = name.toLowerCase();
    const gender = Object.hasOwn(OPENAI_VOICE_GENDERS, lowered) ? OPENAI_VOICE_GENDERS[lowered] : null;
    const openaiModel = OPENAI_SPEECH_ALIASES.includes(model);
    if (openaiModel && gender && !this.installed().some((s) => s.voices.some((v) => v.id.toLowerCase() === lowered))) {
      const spec = this.installed().find((s) => voiceOfGender(s, gender));
      if (spec) return { ok: true, spec, voice: voiceOfGender(spec, gender)! };
    }
    const found = this.findModel(model);
    if (!found.ok) return found;
    const spec = found.spec;
    const voice = this.findVoice(spec, name);
    if (voice) return { ok: true, spec, voice };
    if (gender) {
      const others = this.installed().flatMap((s) => s.voices.filter((v) => v.gender === gender).map((v) => voiceRef(s.id, v.id)));
      return {
        ok: false,
        reason: 'no_voice_of_gender',
        message:
          `"${name}" is one of OpenAI's ${gender} voices, and the model "${spec.id}" has no ${gender} voice (its voices: ${spec.voices.map((v) => `${v.id}, ${v.gender}`).join('; ')}). ` +
          (others.length
            ? `Installed ${gender} voices: ${others.join(', ')}; ask for one of those models, or for model "tts-1", which picks the most natural ${gender} voice.`
            : `No installed engine has a ${gender} voice.`),
      };
    }
    return {
      ok: false,
      reason: 'unknown_voice',
      message: `The model "${spec.id}" has no voice "${name}". Its voices: ${spec.voices.map((v) => v.id).join(', ')}; OpenAI's names (${Object.keys(OPENAI_VOICE_GENDERS).join(', ')}) map onto voices of their gender.`,
    };
  }

  /** Resolves a dub's `<engine>/<voice>` reference against what is installed. */
  lookupRef(ref: string): VoiceLookup {
    const slash = ref.indexOf('/');
    const model = slash > 0 ? ref.slice(0, slash) : '';
    const found = model ? this.findModel(model) : null;
    if (!found || !found.ok) {
      return found && !found.ok ? found : { ok: false, reason: 'unknown_model', message: `A voice is named "<model>/<voice>", e.g. ${this.defaultRef() ?? 'flite/slt'}.` };
    }
    const voice = found.spec.voices.find((v) => v.id === ref.slice(slash + 1));
    if (!voice) {
      return {
        ok: false,
        reason: 'unknown_voice',
        message: `The model "${found.spec.id}" has no voice "${ref.slice(slash + 1)}". Its voices: ${found.spec.voices.map((v) => v.id).join(', ')}.`,
      };
    }
    return { ok: true, spec: found.spec, voice };
  }

  /** Every installed voice, as dubs name them. */
  refs(): string[] {
    return this.installed().flatMap((s) => s.voices.map((v) => voiceRef(s.id, v.id)));
  }

  /**
   * The most natural installed engine's default voice, or null when no engine is installed. With a gender:
   * the most natural installed engine's voice of that gender (null when none has one).
   */
  defaultRef(gender?: VoiceGender): string | null {
    if (gender) {
      for (const spec of this.installed()) {
        const voice = voiceOfGender(spec, gender);
        if (voice) return voiceRef(spec.id, voice.id);
      }
      return null;
    }
    const best = this.installed()[0];
    return best ? voiceRef(best.id, best.defaultVoice) : null;
  }

  private engine(spec: VoiceEngineSpec): Voice {
    let engine = this.engines.get(spec.id);
    if (!engine) {
      engine = spec.create();
      this.engines.set(spec.id, engine);
    }
    return engine;
  }

  /** Speaks `text` with `voice` of `spec` at `speed` (OpenAI's 0.25–4; 1 is the voice's own rate). */
  async speak(spec: VoiceEngineSpec, voice: string, text: string, options: { speed?: number; signal?: AbortSignal } = {}): Promise<SynthesizedSpeech> {
    const speed = options.speed ?? 1;
    const [low, high] = spec.nativeSpeed;
    const native = Math.min(high, Math.max(low, speed));
    const spoken = await this.engine(spec).synthesize(text, { voice, speed: native, signal: options.signal });
    if (native === speed) return spoken;
    const samples = wsolaStretch(spoken.samples, spoken.sampleRate, native / speed);
    // The engine's word times move with the stretch.
    const words = spoken.words && scaleWords(spoken.words, samples.length / Math.max(1, spoken.samples.length));
    return { samples, sampleRate: spoken.sampleRate, ...(words ? { words } : {}) };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.engines.values()].map((e) => e.close()));
    this.engines.clear();
    await this.release();
  }
}
