import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BRITISH_FUNCTION_WORD_FORMS, britishForms } from './british-forms';
import { findOnPath, resolvePocketSphinxModel } from './model';
import { espeakPronunciations } from './pronounce';
import { FUNCTION_WORDS, listedPronunciations } from './pronunciation-variants';

describe('britishForms', () => {
  const american = new Map([
    ['of', [['AH', 'V']]],
    ['the', [['DH', 'AH']]],
    ['or', [['AO', 'R'], ['ER']]],
    ['her', [['HH', 'ER']]],
    ['during', [['D', 'UH', 'R', 'IH', 'NG']]],
  ]);

  it('keeps a British form the word lacks', () => {
    expect(britishForms(american, new Map([['of', ['AA', 'V']]]))).toEqual({ of: ['AA', 'V'] });
  });

  it('leaves a form the dictionary already has, and one that drops an r (or r-coloured vowel) the word has', () => {
    const british = new Map([
      ['the', ['DH', 'AH']],
      ['or', ['AO']],
      ['her', ['HH', 'AH']],
      ['during', ['D', 'Y', 'UH', 'AH', 'R', 'IH', 'NG']],
    ]);
    expect(britishForms(american, british)).toEqual({ during: ['D', 'Y', 'UH', 'AH', 'R', 'IH', 'NG'] });
  });
});

const model = resolvePocketSphinxModel();
const canMake = Boolean(findOnPath('espeak-ng', process.env)) && existsSync(model.dict);

describe.skipIf(!canMake)('BRITISH_FUNCTION_WORD_FORMS', () => {
  it('is what espeak-ng’s en-gb voice and the model’s dictionary make of the function words', async () => {
    const british = await espeakPronunciations([...FUNCTION_WORDS], 'espeak-ng', undefined, 'en-gb');
    const american = listedPronunciations(readFileSync(model.dict, 'utf8'), FUNCTION_WORDS);
    expect(britishForms(american, british!)).toEqual(BRITISH_FUNCTION_WORD_FORMS);
  }, 60_000);
});
