import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { childProcesses } from '../../../../test/helpers/proc-stat';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { wordErrorRate } from '../scoring/wer';
import { SAMPLE_RATE } from '../types';
import { createPocketSphinxRecognizer, pocketSphinxAvailable } from './pocketsphinx-recognizer';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const load = (file: string) => decodeAudioToArray(path.join(asrDir, file), resolveMediaTools());

/** Process ids of this process's pocketsphinx_batch children (Linux truncates the name to 15 characters). */
const decoderPids = (): number[] =>
  childProcesses()
    .filter((child) => child.name === 'pocketsphinx_ba' && child.state !== 'Z')
    .map((child) => child.pid)
    .sort();

describe('pocketSphinxAvailable', () => {
  it('names the Debian packages when the model is missing', () => {
    const r = pocketSphinxAvailable({ ...process.env, TAKELINE_POCKETSPHINX_MODEL_DIR: '/nonexistent' });
    expect(r.ok).toBe(false);
    expect(r.missing!.join(' ')).toContain('pocketsphinx-en-us');
  });

  it('prepare() on a missing model does nothing, and the first recognition says what is missing', async () => {
    const recognizer = createPocketSphinxRecognizer({ env: { ...process.env, TAKELINE_POCKETSPHINX_MODEL_DIR: '/nonexistent' } });
    expect(() => recognizer.prepare!()).not.toThrow();
    await expect(recognizer.recognize(new Float32Array(SAMPLE_RATE))).rejects.toThrow(/pocketsphinx-en-us/);
    await recognizer.close();
  });
});

describe.skipIf(!pocketSphinxAvailable().ok || process.platform !== 'linux')('PocketSphinx decoders started ahead', () => {
  it('prepare() starts the pool before the first chunk, which then uses those processes; close() ends them', async () => {
    const before = decoderPids();
    const recognizer = createPocketSphinxRecognizer({ workers: 2 });
    try {
      recognizer.prepare!();
      const started = decoderPids().filter((pid) => !before.includes(pid));
      expect(started.length).toBe(2);
      recognizer.prepare!(); // warm already: nothing more starts
      const segments = await recognizer.recognize(await load('pocketsphinx_cards_001.flac'));
      expect(segments.length).toBeGreaterThan(0);
      expect(decoderPids().filter((pid) => !before.includes(pid))).toEqual(started);
    } finally {
      await recognizer.close();
    }
    for (let i = 0; i < 50 && decoderPids().some((pid) => !before.includes(pid)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(decoderPids().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});

// Decoders kept alive through a whole analysis held ~230 MB beside an editor's other tools.
describe.skipIf(!pocketSphinxAvailable().ok || process.platform !== 'linux')('PocketSphinx decoders at rest', () => {
  const ours = (before: number[]) => decoderPids().filter((pid) => !before.includes(pid));
  const until = async (done: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
  };

  it('end after idleSeconds without work and start again for the next chunk, with the same words', async () => {
    const before = decoderPids();
    const clip = await load('pocketsphinx_cards_001.flac');
    const recognizer = createPocketSphinxRecognizer({ workers: 2, idleSeconds: 0.5 });
    try {
      const first = await recognizer.recognize(clip);
      const up = ours(before);
      expect(up.length).toBeGreaterThan(0);
      // Still there just after the work (a job coming straight after must not pay for a restart)…
      expect(ours(before)).toEqual(up);
      // …and gone once the pool has been idle for the time given.
      await until(() => ours(before).length === 0, 5000);
      expect(ours(before)).toEqual([]);
      const again = await recognizer.recognize(clip);
      expect(again.flatMap((s) => s.words.map((w) => w.word))).toEqual(first.flatMap((s) => s.words.map((w) => w.word)));
      const restarted = ours(before);
      expect(restarted.length).toBeGreaterThan(0);
      expect(restarted.some((pid) => up.includes(pid))).toBe(false);
    } finally {
      await recognizer.close();
    }
  });

  it('a pool warmed for work that does not come rests too; without idleSeconds the decoders stay', async () => {
    const before = decoderPids();
    const resting = createPocketSphinxRecognizer({ workers: 1, idleSeconds: 0.3 });
    const staying = createPocketSphinxRecognizer({ workers: 1 });
    try {
      resting.prepare!();
      staying.prepare!();
      expect(ours(before).length).toBe(2);
      await until(() => ours(before).length === 1, 5000);
      await new Promise((r) => setTimeout(r, 600));
      expect(ours(before).length).toBe(1);
    } finally {
      await Promise.all([resting.close(), staying.close()]);
    }
  });
});

describe.skipIf(!pocketSphinxAvailable().ok)('PocketSphinx pronunciation variants', () => {
  // The accented reader says "of" with a final [f]: without the variant the decoder hears "off".
  const text = async (pronunciationVariants: boolean, tempDir: string) => {
    const recognizer = createPocketSphinxRecognizer({ workers: 1, tempDir, pronunciationVariants });
    try {
      const segments = await recognizer.recognize(await load('amateur_LJ003-0098.flac'));
      const dictionaries = readdirSync(tempDir).filter((f) => f.startsWith('takeline-dictionary-'));
      return { text: segments.map((s) => s.text).join(' '), dictionaries };
    } finally {
      await recognizer.close();
    }
  };

  it('decodes with the function words’ variants (in a dictionary of its own, removed at close), or without them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-variants-'));
    try {
      const withVariants = await text(true, dir);
      expect(withVariants.dictionaries.length).toBe(1);
      expect(readdirSync(dir).filter((f) => f.startsWith('takeline-dictionary-'))).toEqual([]);
      const without = await text(false, dir);
      expect(without.dictionaries).toEqual([]);
      const reference = 'the inevitable consequence of such a situation, their morals must have been destroyed;';
      expect(withVariants.text).toMatch(/consequence of such/);
      expect(without.text).toMatch(/consequence off such/);
      expect(wordErrorRate(reference, withVariants.text).wer).toBeLessThan(wordErrorRate(reference, without.text).wer);
      // Words come back bare: no alternate-pronunciation marks.
      expect(withVariants.text).not.toMatch(/\(\d+\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!pocketSphinxAvailable().ok)('PocketSphinx recognizer on real audio', () => {
  const recognizer = createPocketSphinxRecognizer({ workers: 2 });
  afterAll(() => recognizer.close());

  it('recognises a short command with decoder times and posteriors, shifted by the offset', async () => {
    const pcm = await load('pocketsphinx_misc_goforward.flac'); // "go forward ten meters"
    const segments = await recognizer.recognize(pcm, { offset: 100 });
    const words = segments.flatMap((s) => s.words);
    const text = words.map((w) => w.word).join(' ');
    expect(wordErrorRate('go forward ten meters', text).wer).toBeLessThanOrEqual(0.25);
    const duration = pcm.length / SAMPLE_RATE;
    for (const w of words) {
      expect(w.word).not.toMatch(/^[<[]|\(\d+\)$/); // no fillers, no alternate-pronunciation marks
      expect(w.start).toBeGreaterThanOrEqual(100);
      expect(w.end).toBeLessThanOrEqual(100 + duration + 0.02);
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.confidence).toBeGreaterThanOrEqual(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
    }
    for (let i = 1; i < words.length; i++)
      expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 0.011);
    expect(segments[0]!.avgLogprob).toBeLessThanOrEqual(0);
  });

  it('decodes chunks in parallel and keeps each result with its chunk', async () => {
    const [a, b] = await Promise.all([
      load('pocketsphinx_cards_001.flac'),
      load('pocketsphinx_cards_003.flac'),
    ]);
    const [ra, rb] = await Promise.all([recognizer.recognize(a!), recognizer.recognize(b!)]);
    const ta = ra!.map((s) => s.text).join(' ');
    const tb = rb!.map((s) => s.text).join(' ');
    expect(wordErrorRate('ten of clubs', ta).wer).toBeLessThan(0.5);
    expect(wordErrorRate('seven of clubs', tb).wer).toBeLessThan(0.5);
  });

  it('returns no words for silence, and rejects an aborted request without breaking the pool', async () => {
    expect(await recognizer.recognize(new Float32Array(SAMPLE_RATE))).toEqual([]);
    const pcm = await load('ljspeech_LJ001-0003.flac');
    const controller = new AbortController();
    const pending = recognizer.recognize(pcm, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const again = await recognizer.recognize(await load('pocketsphinx_cards_001.flac'));
    expect(again.length).toBeGreaterThan(0);
  });
});
