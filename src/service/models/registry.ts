import type { SpeechModel } from '../../shared/schemas';
import { HttpError, ValidationFailure } from '../http/errors';
import { issue } from '../http/validation';

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
}

export interface ResolvedEngine {
  descriptor: EngineDescriptor;
  model: SpeechModel;
}

/** The speech models this service can actually run right now; an engine whose model is missing is not listed. */
export class ModelRegistry {
  constructor(private readonly engines: EngineDescriptor[]) {}

  installed(): ResolvedEngine[] {
    const available = this.engines.filter((e) => e.missing() === null).sort((a, b) => b.rank - a.rank);
    const bestStt = available.find((e) => e.model.kind === 'stt');
    return available.map((descriptor) => ({
      descriptor,
      model: {
        ...descriptor.model,
        aliases: [...(descriptor.model.aliases ?? []), ...(descriptor === bestStt ? OPENAI_TRANSCRIBE_ALIASES : [])],
      },
    }));
  }

  list(): SpeechModel[] {
    return this.installed().map((e) => e.model);
  }

  /**
   * Finds an installed recognizer by id or alias. An engine we know but cannot run → 404 naming what to
   * install; a name we do not know at all → 400 listing what is available.
   */
  resolveRecognizer(name: string | undefined): ResolvedEngine {
    const installed = this.installed().filter((e) => e.model.kind === 'stt');
    if (name === undefined || name === '') {
      if (installed[0]) return installed[0];
      throw new HttpError(404, `No speech recognizer is installed. ${this.engines.filter((e) => e.model.kind === 'stt').map((e) => e.installHint).join(' ')}`, {
        code: 'model_not_found',
        param: 'model',
      });
    }
    const found = installed.find((e) => e.model.id === name || e.model.aliases.includes(name));
    if (found) return found;
    const known = this.engines.find((e) => e.model.id === name || e.model.aliases?.includes(name) || OPENAI_TRANSCRIBE_ALIASES.includes(name));
    if (known) {
      throw new HttpError(404, `The model "${name}" is not installed. ${known.installHint}`, { code: 'model_not_found', param: 'model' });
    }
    const names = installed.flatMap((e) => [e.model.id, ...e.model.aliases]);
    throw new HttpError(400, `Unknown model "${name}". Installed: ${names.join(', ') || 'none'}.`, { code: 'model_not_found', param: 'model' });
  }

  languages(): string[] {
    return [...new Set(this.installed().filter((e) => e.model.kind === 'stt').flatMap((e) => e.descriptor.languages))].sort();
  }
}

const LANGUAGE_NAMES: Record<string, string> = { english: 'en' };

/** Accepts ISO 639-1 codes (en), locale tags (en-US) and English names; defaults to English. */
export function resolveLanguage(value: string | undefined, supported: string[], loc: Array<string | number>): string {
  if (value === undefined || value.trim() === '') return supported.includes('en') || supported.length === 0 ? 'en' : supported[0]!;
  const lowered = value.trim().toLowerCase();
  const code = LANGUAGE_NAMES[lowered] ?? lowered.split(/[-_]/)[0]!;
  if (supported.includes(code)) return code;
  throw new ValidationFailure([
    issue(loc, `Language "${value}" is not supported. Supported: ${supported.join(', ') || 'none (no recognizer installed)'}.`, 'language_unsupported', value, {
      supported,
    }),
  ]);
}
