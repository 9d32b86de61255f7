import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { pocketSphinxAvailable } from '../recognition/pocketsphinx/model';
import { SAMPLE_RATE } from '../types';
import { createPocketSphinxAligner } from './pocketsphinx-aligner';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const load = (file: string) => decodeAudioToArray(path.join(asrDir, file), resolveMediaTools());

describe.skipIf(!pocketSphinxAvailable().ok)('PocketSphinx forced alignment on real audio', () => {
  const aligner = createPocketSphinxAligner();
  afterAll(() => aligner.close());

  it('times every word of a known sentence, in order, inside the audio', async () => {
    const text =
      'Printing, in the only sense with which we are at present concerned, differs from most if not from all the arts and crafts represented in the Exhibition';
    const pcm = await load('ljspeech_LJ001-0001.flac');
    const words = await aligner.align(pcm, text, { offset: 10 });
    expect(words.map((w) => w.word)).toEqual(text.split(' '));
    const duration = pcm.length / SAMPLE_RATE;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      expect(w.end).toBeGreaterThan(w.start);
      expect(w.start).toBeGreaterThanOrEqual(10);
      expect(w.end).toBeLessThanOrEqual(10 + duration);
      expect(w.confidence).toBeGreaterThan(0);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-6);
    }
    // The recording's speech starts within its first 0.2 s and "Exhibition" is its last word.
    expect(words[0]!.start - 10).toBeLessThan(0.2);
    expect(duration + 10 - words.at(-1)!.end).toBeLessThan(0.5);
    expect(words.at(-1)!.end - words.at(-1)!.start).toBeGreaterThan(0.4);
  });

  it('places out-of-vocabulary names between their neighbours with confidence 0', async () => {
    const text =
      'But the first Bible actually dated (which also was printed at Maintz by Peter Schoeffer in the year fourteen sixty-two)';
    const words = await aligner.align(await load('ljspeech_LJ001-0024.flac'), text);
    const byWord = new Map(words.map((w, i) => [w.word, { ...w, i }]));
    for (const name of ['Maintz', 'Schoeffer']) {
      const w = byWord.get(name)!;
      expect(w.confidence).toBe(0);
      expect(w.start).toBeGreaterThanOrEqual(words[w.i - 1]!.end - 1e-6);
      expect(w.end).toBeLessThanOrEqual(words[w.i + 1]!.start + 1e-6);
      expect(w.end).toBeGreaterThan(w.start);
    }
    expect(byWord.get('Peter')!.confidence).toBeGreaterThan(0);
  });

  it('aligns names the dictionary lacks with espeak-ng pronunciations when asked to', async () => {
    const text =
      'But the first Bible actually dated (which also was printed at Maintz by Peter Schoeffer in the year fourteen sixty-two)';
    const pronouncing = createPocketSphinxAligner({ pronounceUnknown: true });
    try {
      const words = await pronouncing.align(await load('ljspeech_LJ001-0024.flac'), text);
      expect(words.map((w) => w.word)).toEqual(text.split(' '));
      for (const name of ['Maintz', 'Schoeffer']) {
        const i = words.findIndex((w) => w.word === name);
        const w = words[i]!;
        // Decoded, not interpolated: the decoder's posterior, inside its neighbours.
        expect(w.confidence).toBeGreaterThan(0);
        expect(w.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-6);
        expect(w.end).toBeLessThanOrEqual(words[i + 1]!.start + 1e-6);
        expect(w.end - w.start).toBeGreaterThan(0.15);
      }
    } finally {
      await pronouncing.close();
    }
  });

  it('returns nothing for text without words', async () => {
    expect(await aligner.align(new Float32Array(SAMPLE_RATE), ' — ')).toEqual([]);
  });
});
