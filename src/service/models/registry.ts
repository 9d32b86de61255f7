import type { SpeechModel } from '../../shared/schemas';
import type { Recognizer } from '../speech/types';
import { BadRequestError, InvalidInputError, issue, NotFoundError } from '../errors';

/** OpenAI's speech (text-to-speech) model names; they resolve to the most natural installed voice engine. */
export const OPENAI_SPEECH_ALIASES = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-12-15'];

/** OpenAI's transcription model names; they resolve to the best installed recognizer. */
export const OPENAI_TRANSCRIBE_ALIASES = ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'gpt-4o-transcribe-diarize'];

export interface EngineDescriptor {
  model: Omit<SpeechModel, 'aliases'> & { aliases?: string[] };
  /** Higher is better; the best installed recognizer takes the OpenAI aliases. */
  rank: number;
  /** ISO 639-1 codes the engine transcribes. */
  languages: string[];
  /** What is missing, or null when the engine can run. Checked on every listing (cheap file checks). */
  missing(): string | null;
  /** How to install it, for error messages. */
  installHint: string;
  /** Builds the recognizer (engines other than PocketSphinx bring their own); it loads its model on first use. */
  createRecognizer?(): Recognizer;
  /** Brings the model's files onto this node before the recognizer uses them (a team's Whisper model, from its storage). */
  provision?(signal?: AbortSignal): Promise<void>;
}

export interface ResolvedEngine {
  descriptor: EngineDescriptor;
  model: SpeechModel;
}

/** The speech models this service can actually run right now; an engine whose model is missing is not listed. */
export class ModelRegistry {
  constructor(
    /** A list, or a function read on every call (engines whose models are downloaded while running). */
    private readonly source: EngineDescriptor[] | (() => EngineDescriptor[]),
    /** Reads what the engines' `missing` checks depend on from elsewhere (a team's installed models, in its database). */
    private readonly reload?: () => Promise<void>,
  ) {}

  /** Call before listing or choosing an engine where models may change elsewhere (a team's other nodes); a no-op on the desktop. */
  async refresh(): Promise<this> {
    await this.reload?.();
    return this;
  }

  private get engines(): EngineDescriptor[] {
    return typeof this.source === 'function' ? this.source() : this.source;
  }

  installed(): ResolvedEngine[] {
    const available = this.engines.filter((e) => e.missing() === null).sort((a, b) => b.rank - a.rank);
    const bestStt = available.find((e) => e.model.kind === 'stt');
    const bestTts = available.find((e) => e.model.kind === 'tts');
    const openAiAliases = (d: EngineDescriptor) =>
      d === bestStt ? OPENAI_TRANSCRIBE_ALIASES : d === bestTts ? OPENAI_SPEECH_ALIASES : [];
    return available.map((descriptor) => ({
      descriptor,
      model: { ...descriptor.model, aliases: [...(descriptor.model.aliases ?? []), ...openAiAliases(descriptor)] },
    }));
  }

  list(): SpeechModel[] {
    return this.installed().map((e) => e.model);
  }

  /**
   * Finds an installed recognizer by id or alias. An engine we know but cannot run → 404 naming what to
   * install; a name we do not know at all → 400 listing what is available.
   */
  resolveRecognizer(name: string | undefined, language?: string): ResolvedEngine {
    const installed = this.installed().filter((e) => e.model.kind === 'stt');
    if (name === undefined || name === '') {
      // The best installed engine, among those that transcribe the language when one is given.
      const best = installed.find((e) => language === undefined || e.descriptor.languages.includes(language)) ?? installed[0];
      if (best) return best;
      throw new NotFoundError(`No speech recognizer is installed. ${this.engines.filter((e) => e.model.kind === 'stt').map((e) => e.installHint).join(' ')}`, {
        code: 'model_not_found',
        param: 'model',
      });
    }
    const found = installed.find((e) => e.model.id === name || e.model.aliases.includes(name));
    if (found) return found;
    const known = this.engines.find((e) => e.model.id === name || e.model.aliases?.includes(name) || OPENAI_TRANSCRIBE_ALIASES.includes(name));
    if (known) {
      throw new NotFoundError(`The model "${name}" is not installed. ${known.installHint}`, { code: 'model_not_found', param: 'model' });
    }
    const names = installed.flatMap((e) => [e.model.id, ...e.model.aliases]);
    throw new BadRequestError(`Unknown model "${name}". Installed: ${names.join(', ') || 'none'}.`, { code: 'model_not_found', param: 'model' });
  }

  languages(): string[] {
    return [...new Set(this.installed().filter((e) => e.model.kind === 'stt').flatMap((e) => e.descriptor.languages))].sort();
  }
}

/** 400 (422 under /v1/speech) when the chosen engine does not transcribe the language. */
export function assertEngineLanguage(engine: ResolvedEngine, language: string, loc: Array<string | number>): void {
  if (engine.descriptor.languages.includes(language)) return;
  throw new InvalidInputError([
    issue(loc, `The model "${engine.model.id}" does not transcribe "${language}". It transcribes: ${engine.descriptor.languages.join(', ')}.`, 'language_unsupported', language, {
      supported: engine.descriptor.languages,
    }),
  ]);
}

const LANGUAGE_NAMES: Record<string, string> = { english: 'en' };

/** Accepts ISO 639-1 codes (en), locale tags (en-US) and English names; defaults to English. */
export function resolveLanguage(value: string | undefined, supported: string[], loc: Array<string | number>): string {
  if (value === undefined || value.trim() === '') return supported.includes('en') || supported.length === 0 ? 'en' : supported[0]!;
  const lowered = value.trim().toLowerCase();
  const code = LANGUAGE_NAMES[lowered] ?? lowered.split(/[-_]/)[0]!;
  if (supported.includes(code)) return code;
  throw new InvalidInputError([
    issue(loc, `Language "${value}" is not supported. Supported: ${supported.join(', ') || 'none (no recognizer installed)'}.`, 'language_unsupported', value, {
      supported,
    }),
  ]);
}
