import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelsDir } from '../../../../test/helpers/paths';
import { tempDir } from '../../../../test/helpers/temp';
import { createWhisperRecognizer } from './whisper-recognizer';
import { WhisperLanguageError } from './whisper/params';
import { smartWhisperMissing } from './whisper/addon';
import { SAMPLE_RATE } from '../types';

// A real ggml file with the tiny.en header and vocabulary but no weights: whisper.cpp loads it and
// transcribes to nothing (../shared/models/whisper-for-tests/README.md). It tests the plumbing, not accuracy.
const TEST_MODEL = path.join(modelsDir, 'whisper-for-tests', 'for-tests-ggml-tiny.en.bin');

function tone(seconds: number): Float32Array {
  const pcm = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  for (let i = 0; i < pcm.length; i++) pcm[i] = 0.1 * Math.sin((2 * Math.PI * 220 * i) / SAMPLE_RATE);
  return pcm;
}

describe('Whisper recognizer (smart-whisper in a child process)', () => {
  const recognizer = createWhisperRecognizer({ id: 'whisper-for-tests', modelFile: TEST_MODEL, multilingual: false, threads: 2 });
  afterAll(() => recognizer.close());

  it('the add-on is built', () => {
    expect(smartWhisperMissing()).toBeNull();
  });

  it('loads the model and transcribes to nothing (a model without weights)', async () => {
    expect(recognizer.id).toBe('whisper-for-tests');
    const segments = await recognizer.recognize(tone(2), { offset: 4, prompt: 'Ada Lovelace', temperature: 0 });
    expect(segments).toEqual([]);
  }, 120_000);

  it('cancels the chunk being decoded at once and recognizes the next one in a fresh process', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = recognizer.recognize(tone(3), { signal: controller.signal });
    const queued = recognizer.recognize(tone(1), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user cancelled')), 500);
    await expect(pending).rejects.toThrow('user cancelled');
    await expect(queued).rejects.toThrow('user cancelled');
    // One tiny-model call takes seconds here; the abort must not wait for it.
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(recognizer.recognize(tone(1))).resolves.toEqual([]);
  }, 120_000);

  it('refuses another language on an English-only model before any work', async () => {
    await expect(recognizer.recognize(tone(1), { language: 'de' })).rejects.toThrow(WhisperLanguageError);
  });

  it('a file that is not a ggml model fails with a clear message, not a crash of the service', async () => {
    const bad = path.join(tempDir('takeline-whisper-'), 'ggml-broken.bin');
    fs.writeFileSync(bad, 'not a model');
    const broken = createWhisperRecognizer({ id: 'whisper-broken', modelFile: bad, multilingual: false });
    try {
      await expect(broken.recognize(tone(1))).rejects.toThrow(/could not be loaded.*bad magic/);
    } finally {
      await broken.close();
    }
  }, 60_000);

  it('refuses work once closed', async () => {
    const closed = createWhisperRecognizer({ id: 'whisper-closed', modelFile: TEST_MODEL, multilingual: false });
    await closed.close();
    await expect(closed.recognize(tone(1))).rejects.toThrow(/closed/);
  });
});
