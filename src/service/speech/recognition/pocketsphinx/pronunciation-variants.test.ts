import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dictionaryWords } from './vocabulary';
import {
  FUNCTION_WORDS,
  listedPronunciations,
  pronunciationVariantLines,
  withPronunciationVariants,
} from './pronunciation-variants';
import type { PocketSphinxModel } from './model';

const DICTIONARY = [
  'of AH V',
  'off AO F',
  'is IH Z',
  'with W IH DH',
  'with(2) W IH TH',
  'and AH N D',
  'and(2) AE N D',
  'bag B AE G',
  'the DH AH',
].join('\n');

describe('pronunciationVariantLines', () => {
  it('gives each pronunciation of a listed word that ends in a voiced obstruent its devoiced variant, numbered on', () => {
    expect(pronunciationVariantLines(DICTIONARY, FUNCTION_WORDS)).toBe(
      ['of(2) AH F', 'is(2) IH S', 'and(3) AH N T', 'and(4) AE N T', ''].join('\n'),
    );
  });

  it('leaves words outside the list, words ending otherwise, and variants the word already has', () => {
    const lines = pronunciationVariantLines(DICTIONARY, FUNCTION_WORDS);
    // "bag" is no function word; "the" ends in a vowel; "with" already has W IH TH.
    expect(lines).not.toMatch(/^(bag|the|with|off)\b/m);
    expect(pronunciationVariantLines(DICTIONARY, new Set(['bag']))).toBe('bag(2) B AE K\n');
  });

  it('adds a form the word lacks before the devoiced variants, and devoices the added form too', () => {
    const added = { of: ['AA', 'V'], the: ['DH', 'AH'], bag: ['B', 'AA', 'G'] };
    // "the" already has DH AH; "bag" is not among the words asked for.
    expect(pronunciationVariantLines(DICTIONARY, new Set(['of', 'the']), added)).toBe(
      ['of(2) AA V', 'of(3) AH F', 'of(4) AA F', ''].join('\n'),
    );
  });
});

describe('listedPronunciations', () => {
  it('collects every pronunciation of the listed words, numbered or not, and nothing else', () => {
    expect(listedPronunciations(DICTIONARY, new Set(['with', 'of', 'absent']))).toEqual(
      new Map([
        ['of', [['AH', 'V']]],
        [
          'with',
          [
            ['W', 'IH', 'DH'],
            ['W', 'IH', 'TH'],
          ],
        ],
      ]),
    );
  });
});

describe('withPronunciationVariants', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('writes the model’s dictionary plus the variants under a private name, and removes it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'takeline-variants-'));
    dirs.push(dir);
    const source = path.join(dir, 'model.dict');
    writeFileSync(source, DICTIONARY);
    const model: PocketSphinxModel = { dir, hmm: dir, lm: 'lm', dict: source, batch: 'b' };
    const variants = withPronunciationVariants(model, dir);
    expect(variants.model).toEqual({ ...model, dict: variants.model.dict });
    expect(path.dirname(variants.model.dict)).toBe(dir);
    const text = readFileSync(variants.model.dict, 'utf8');
    expect(text.startsWith(`${DICTIONARY}\n`)).toBe(true);
    expect(text).toContain('of(2) AA V\n'); // the British form
    expect(text).toContain('of(3) AH F\n');
    // The same words: a variant is a pronunciation, not a word.
    expect(dictionaryWords(text)).toEqual(dictionaryWords(DICTIONARY));
    // The model's own file is untouched.
    expect(readFileSync(source, 'utf8')).toBe(DICTIONARY);
    variants.remove();
    expect(existsSync(variants.model.dict)).toBe(false);
  });
});
