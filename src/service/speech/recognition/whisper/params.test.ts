import { describe, expect, it } from 'vitest';
import { WhisperLanguageError, whisperParams } from './params';

describe('whisperParams (OpenAI parameters → whisper_full_params)', () => {
  it('temperature 0 decodes with beam search and lets whisper.cpp raise the temperature on failure', () => {
    const p = whisperParams({ temperature: 0, threads: 2, multilingual: false });
    expect(p).toMatchObject({ strategy: 1, beam_size: 5, temperature: 0, temperature_inc: 0.2, n_threads: 2, language: 'en' });
  });

  it('a temperature above 0 samples at that temperature without fallback', () => {
    const p = whisperParams({ temperature: 0.4, threads: 2, multilingual: true });
    expect(p).toMatchObject({ strategy: 0, best_of: 5, temperature: 0.4, temperature_inc: 0 });
  });

  it('clamps the temperature to 0–1 and defaults it to 0', () => {
    expect(whisperParams({ temperature: 3, threads: 1, multilingual: true }).temperature).toBe(1);
    expect(whisperParams({ threads: 1, multilingual: true })).toMatchObject({ temperature: 0, strategy: 1 });
  });

  it('passes the language; multilingual models detect it when none is given', () => {
    expect(whisperParams({ language: 'DE', threads: 1, multilingual: true }).language).toBe('de');
    expect(whisperParams({ threads: 1, multilingual: true }).language).toBe('auto');
    expect(whisperParams({ threads: 1, multilingual: false }).language).toBe('en');
  });

  it('refuses another language on an English-only model', () => {
    expect(() => whisperParams({ language: 'fr', threads: 1, multilingual: false })).toThrow(WhisperLanguageError);
  });

  it('the prompt becomes the initial prompt; an empty one is left out', () => {
    expect(whisperParams({ prompt: '  Ada Lovelace, Babbage ', threads: 1, multilingual: false }).initial_prompt).toBe('Ada Lovelace, Babbage');
    expect('initial_prompt' in whisperParams({ prompt: '   ', threads: 1, multilingual: false })).toBe(false);
  });

  it('asks for token timestamps and probabilities, and for no console output', () => {
    expect(whisperParams({ threads: 3.7, multilingual: false })).toMatchObject({
      n_threads: 3,
      token_timestamps: true,
      format: 'detail',
      no_context: true,
      print_progress: false,
      print_realtime: false,
    });
  });
});
