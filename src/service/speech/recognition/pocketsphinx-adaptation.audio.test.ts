import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { createPocketSphinxRecognizer, pocketSphinxAvailable } from './pocketsphinx-recognizer';
import { featureStreamLengths, identityMllr } from './pocketsphinx/mllr-file';
import { findOnPath, resolvePocketSphinxModel } from './pocketsphinx/model';
import { resolveSphinxtrain, transformMeans } from './pocketsphinx/adaptation';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const asrDir = path.join(process.env.TAKELINE_SHARED_DIR || path.resolve(repoRoot, '../shared'), 'audio/asr');
const load = (file: string) => decodeAudioToArray(path.join(asrDir, file), resolveMediaTools());
// A transform mllr_solve estimated from four amateur recordings' first-pass words (LJ001-0001 … 0049).
const TRANSFORM = fileURLToPath(new URL('./pocketsphinx/fixtures/amateur-lj001.mllr', import.meta.url));

describe.skipIf(!pocketSphinxAvailable().ok)('PocketSphinx recognizer with a per-chunk MLLR transform', () => {
  // One worker, so every chunk goes through the same decoder process in the order given.
  const recognizer = createPocketSphinxRecognizer({ workers: 1 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-mllr-test-'));
  afterAll(async () => {
    await recognizer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decodes a chunk with its transform, and the next chunk without one exactly as un-adapted', async () => {
    const [a, b] = await Promise.all([load('amateur_LJ001-0058.flac'), load('amateur_LJ001-0010.flac')]);
    const plainA = await recognizer.recognize(a!);
    const plainB = await recognizer.recognize(b!);
    const adaptedA = await recognizer.recognize(a!, { mllr: TRANSFORM });
    // The transform moves the model: the posteriors (and here the words) change.
    expect(adaptedA).not.toEqual(plainA);
    // The decoder reloads the means before the identity: B is not decoded with A's transform, nor twice transformed.
    expect(await recognizer.recognize(b!)).toEqual(plainB);
    // Back to the transform: applied once to fresh means, so the same result as the first time.
    expect(await recognizer.recognize(a!, { mllr: TRANSFORM })).toEqual(adaptedA);
    expect(await recognizer.recognize(a!, { mllr: TRANSFORM })).toEqual(adaptedA);
  });

  it('notices a transform replaced under the same name, and decodes un-adapted when the file is gone', async () => {
    const a = await load('amateur_LJ001-0058.flac');
    const plain = await recognizer.recognize(a);
    const file = path.join(dir, 'speaker.mllr');
    copyFileSync(TRANSFORM, file);
    const adapted = await recognizer.recognize(a, { mllr: file });
    expect(adapted).not.toEqual(plain);
    // The same name now holds the identity (as a re-estimate replaces a speaker's transform).
    writeFileSync(file, identityMllr(featureStreamLengths(resolvePocketSphinxModel().hmm)));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await recognizer.recognize(a, { mllr: file })).toEqual(plain);
    rmSync(file);
    expect(await recognizer.recognize(a, { mllr: file })).toEqual(plain);
  });

  it.skipIf(!findOnPath('espeak-ng', process.env))('applies the transform in a project vocabulary’s decoders too', async () => {
    const a = await load('amateur_LJ001-0058.flac');
    const vocabulary = ['Zorblatt'];
    const plain = await recognizer.recognize(a, { vocabulary });
    const adapted = await recognizer.recognize(a, { vocabulary, mllr: TRANSFORM });
    expect(adapted).not.toEqual(plain);
    expect(await recognizer.recognize(a, { vocabulary })).toEqual(plain);
  });

  it('ignores transforms when adaptation is off', async () => {
    const off = createPocketSphinxRecognizer({ workers: 1, adaptation: false });
    try {
      const a = await load('amateur_LJ001-0058.flac');
      expect(await off.recognize(a, { mllr: TRANSFORM })).toEqual(await recognizer.recognize(a));
    } finally {
      await off.close();
    }
  });
});

describe.skipIf(!pocketSphinxAvailable().ok || !resolveSphinxtrain())('PocketSphinx recognizer with a speaker’s adapted means', () => {
  const recognizer = createPocketSphinxRecognizer({ workers: 1 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-means-test-'));
  afterAll(async () => {
    await recognizer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const words = (segments: Awaited<ReturnType<typeof recognizer.recognize>>) => segments.flatMap((s) => s.words.map((w) => w.word));

  it('decodes by the means file instead of the transform: the model’s own means as un-adapted, the transform’s means as the transform', async () => {
    const a = await load('amateur_LJ001-0058.flac');
    const hmm = resolvePocketSphinxModel().hmm;
    const own = path.join(dir, 'own.means');
    copyFileSync(path.join(hmm, 'means'), own);
    const plain = await recognizer.recognize(a);
    expect(await recognizer.recognize(a, { means: own, mllr: TRANSFORM })).toEqual(plain);
    // The means moved by the transform (what MAP starts from) decode as the transform does.
    const moved = path.join(dir, 'moved.means');
    await transformMeans(resolveSphinxtrain()!, hmm, TRANSFORM, moved, path.join(dir, 'transform.log'));
    const adapted = await recognizer.recognize(a, { mllr: TRANSFORM });
    expect(words(adapted)).not.toEqual(words(plain));
    expect(words(await recognizer.recognize(a, { means: moved }))).toEqual(words(adapted));
    // Means that are gone: the chunk falls back to the transform.
    rmSync(moved);
    expect(await recognizer.recognize(a, { means: moved, mllr: TRANSFORM })).toEqual(adapted);
  });
});
