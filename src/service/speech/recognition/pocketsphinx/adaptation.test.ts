import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwTranscript, chooseAdaptation, createMllrAdaptation, pickWarp, prepareTrainingModel, resolveSphinxtrain, warpArgs } from './adaptation';
import { resolvePocketSphinxModel } from './model';

describe('chooseAdaptation (the fallback)', () => {
  const o = (method: 'mllr' | 'vtln', adaptedErrors: number) => ({
    method,
    baselineErrors: 200,
    adaptedErrors,
    referenceWords: 500,
  });

  it('uses no adaptation when nothing gains on the tuning half', () => {
    expect(chooseAdaptation([])).toBe('none');
    expect(chooseAdaptation([o('mllr', 200), o('vtln', 210)])).toBe('none');
    // 3 fewer errors of 200 is 1.5 %: below the 2 % threshold, within noise.
    expect(chooseAdaptation([o('mllr', 197)])).toBe('none');
    // 2 fewer of 40 is 5 %, but two words are noise.
    expect(
      chooseAdaptation([{ method: 'vtln', baselineErrors: 40, adaptedErrors: 38, referenceWords: 150 }]),
    ).toBe('none');
  });

  it('uses the method with the largest gain when it clears the threshold', () => {
    expect(chooseAdaptation([o('mllr', 190), o('vtln', 180)])).toBe('vtln');
    expect(chooseAdaptation([o('mllr', 190), o('vtln', 205)])).toBe('mllr');
    expect(chooseAdaptation([o('mllr', 190)], { minRelativeGain: 0.1 })).toBe('none');
  });

  it('leaves out a method that costs more CPU than the speed target leaves', () => {
    const costly = { ...o('mllr', 150), extraCpu: 0.35 };
    const cheap = { ...o('vtln', 190), extraCpu: 0.02 };
    expect(chooseAdaptation([costly, cheap])).toBe('mllr');
    expect(chooseAdaptation([costly, cheap], { maxExtraCpu: 0.05 })).toBe('vtln');
    expect(chooseAdaptation([costly], { maxExtraCpu: 0 })).toBe('none');
  });
});

describe('pickWarp', () => {
  it('keeps the best pooled score, and 1 on ties or without scores', () => {
    expect(
      pickWarp(
        new Map([
          [0.9, -120],
          [1, -100],
          [1.1, -90],
        ]),
      ),
    ).toBe(1.1);
    expect(
      pickWarp(
        new Map([
          [0.9, -90],
          [1, -90],
          [1.1, -95],
        ]),
      ),
    ).toBe(1);
    expect(pickWarp(new Map())).toBe(1);
    expect(warpArgs(1)).toEqual([]);
    expect(warpArgs(0.95)).toEqual(['-warp_type', 'inverse_linear', '-warp_params', '0.95']);
  });
});

describe('bwTranscript', () => {
  it('strips alternate-pronunciation marks and fillers; nothing left → null', () => {
    expect(bwTranscript('the(2) cat <sil> [NOISE] sat', 'c1_0')).toBe('<s> the cat sat </s> (c1_0)');
    expect(bwTranscript(' <sil> ', 'c1_1')).toBeNull();
  });
});

describe('createMllrAdaptation', () => {
  it('falls back (no decoder flags) when too little speech carries words, without running any tool', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-adapt-test-'));
    try {
      // Tools that do not exist: the guard must answer before any is needed.
      const mllr = createMllrAdaptation(
        resolvePocketSphinxModel(),
        { dir: '/nonexistent', sphinxFe: '/nonexistent/fe', mdefConvert: '/nonexistent/mc' },
        dir,
      );
      const second = Buffer.alloc(32000);
      const r = await mllr.estimate(
        [
          { id: 'a', pcm: second, hypothesis: 'hello' },
          { id: 'b', pcm: Buffer.alloc(5 * 32000), hypothesis: '' },
        ],
        dir,
      );
      expect(r.args).toBeNull();
      expect(r).toMatchObject({ skipped: 'only 1.0 s with words' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('falls back when a sphinxtrain tool fails, reporting why', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-adapt-test-'));
    try {
      const model = { ...resolvePocketSphinxModel(), hmm: path.join(dir, 'no-model') };
      const mllr = createMllrAdaptation(
        model,
        { dir: '/nonexistent', sphinxFe: 'sphinx_fe', mdefConvert: 'pocketsphinx_mdef_convert' },
        dir,
      );
      const r = await mllr.estimate(
        [{ id: 'a', pcm: Buffer.alloc(4 * 32000), hypothesis: 'hello world' }],
        dir,
      );
      expect(r.args).toBeNull();
      expect('skipped' in r && r.skipped).toMatch(/sendump|ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('prepareTrainingModel', () => {
  const tools = resolveSphinxtrain();
  it.skipIf(!tools)('builds the model once for processes asking at once, never exposing a half-built folder, and replaces a half-built leftover', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-adapt-model-'));
    try {
      const model = resolvePocketSphinxModel();
      const target = path.join(dir, 'sphinxtrain-model');
      // While three builds run, the model's folder is either absent or complete (what another process would read).
      let halfSeen = 0;
      let building = true;
      const watch = (async () => {
        while (building) {
          if (existsSync(target) && !existsSync(path.join(target, 'ready'))) halfSeen++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      const first = await Promise.all(Array.from({ length: 3 }, () => prepareTrainingModel(model, tools!, dir)));
      building = false;
      await watch;
      expect(halfSeen, 'times a half-built model folder was visible').toBe(0);
      expect(new Set(first)).toEqual(new Set([target]));
      // A folder an older version left half-built (no `ready`): replaced, not trusted.
      rmSync(target, { recursive: true });
      mkdirSync(target);
      writeFileSync(path.join(target, 'mixture_weights'), 'half');
      const built = await Promise.all(Array.from({ length: 3 }, () => prepareTrainingModel(model, tools!, dir)));
      expect(new Set(built)).toEqual(new Set([path.join(dir, 'sphinxtrain-model')]));
      const files = readdirSync(built[0]!).sort();
      for (const f of ['feat.params', 'mdef.txt', 'means', 'mixture_weights', 'noisedict', 'ready', 'transition_matrices', 'variances']) expect(files).toContain(f);
      // Nothing of the builders is left beside it.
      expect(readdirSync(dir)).toEqual(['sphinxtrain-model']);
      expect(existsSync(path.join(built[0]!, 'ready'))).toBe(true);
      // A finished model is used as it is.
      expect(await prepareTrainingModel(model, tools!, dir)).toBe(built[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
