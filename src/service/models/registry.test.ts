import { describe, expect, it } from 'vitest';
import { assertEngineLanguage, ModelRegistry, OPENAI_TRANSCRIBE_ALIASES, type EngineDescriptor } from './registry';
import { InvalidInputError } from '../errors';

function engine(id: string, rank: number, languages: string[], installed = true): EngineDescriptor {
  return {
    model: { id, kind: 'stt', tier: 'free', supports_streaming: true, supports_cloning: false, supports_diarization: true, formats: ['json'], default_voice: '' },
    rank,
    languages,
    missing: () => (installed ? null : 'not downloaded'),
    installHint: `Download ${id}.`,
  };
}

describe('ModelRegistry', () => {
  it('the best installed recognizer takes the OpenAI aliases and is the default', () => {
    const registry = new ModelRegistry([engine('pocketsphinx-en-us', 10, ['en']), engine('whisper-base.en', 31, ['en'])]);
    const [best, next] = registry.list();
    expect(best!.id).toBe('whisper-base.en');
    expect(best!.aliases).toEqual(expect.arrayContaining(OPENAI_TRANSCRIBE_ALIASES));
    expect(next!.aliases).toEqual([]);
    expect(registry.resolveRecognizer(undefined).model.id).toBe('whisper-base.en');
    expect(registry.resolveRecognizer('whisper-1').model.id).toBe('whisper-base.en');
  });

  it('reads a function on every call, so a model downloaded while running is listed at once', () => {
    let downloaded = false;
    const registry = new ModelRegistry(() => [engine('pocketsphinx-en-us', 10, ['en']), engine('whisper-small', 40, ['en', 'de'], downloaded)]);
    expect(registry.resolveRecognizer('whisper-1').model.id).toBe('pocketsphinx-en-us');
    expect(() => registry.resolveRecognizer('whisper-small')).toThrow(/not installed\. Download whisper-small\./);
    downloaded = true;
    expect(registry.resolveRecognizer('whisper-1').model.id).toBe('whisper-small');
    expect(registry.languages()).toEqual(['de', 'en']);
  });

  it('without a model named, picks the best engine that transcribes the language', () => {
    const registry = new ModelRegistry([engine('whisper-base.en', 31, ['en']), engine('whisper-base', 30, ['en', 'de'])]);
    expect(registry.resolveRecognizer(undefined, 'de').model.id).toBe('whisper-base');
    expect(registry.resolveRecognizer(undefined, 'en').model.id).toBe('whisper-base.en');
  });

  it('assertEngineLanguage refuses a language the chosen engine does not transcribe', () => {
    const registry = new ModelRegistry([engine('whisper-base.en', 31, ['en'])]);
    const chosen = registry.resolveRecognizer('whisper-base.en');
    expect(() => assertEngineLanguage(chosen, 'en', ['body', 'language'])).not.toThrow();
    expect(() => assertEngineLanguage(chosen, 'de', ['body', 'language'])).toThrow(InvalidInputError);
  });
});
