import { describe, expect, it } from 'vitest';
import {
  classDefinition,
  dictionaryLines,
  dictionaryWords,
  languageModelControl,
  MAX_VOCABULARY_WORDS,
  vocabularyWords,
} from './vocabulary';

describe('vocabularyWords', () => {
  it('takes lower-case words once each, keeps inner apostrophes, skips numbers, single letters and other scripts', () => {
    expect(vocabularyWords(['Sweynheim and Pannartz, at Subiaco (1465).', "Zeiner’s press; 'quoted' a B", undefined, 'Ünïcode тест'])).toEqual([
      'sweynheim',
      'and',
      'pannartz',
      'at',
      'subiaco',
      "zeiner's",
      'press',
      'quoted',
    ]);
  });

  it('caps the number of words', () => {
    const many = Array.from({ length: 500 }, (_, i) => `w${'x'.repeat(i % 30)}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    expect(vocabularyWords([many.join(' ')])).toHaveLength(MAX_VOCABULARY_WORDS);
  });
});

describe('decoder files for a vocabulary', () => {
  const entries = [
    { word: 'sweynheim', phones: ['S', 'W', 'EY', 'N', 'HH', 'AY', 'M'] },
    { word: 'subiaco', phones: ['S', 'AH', 'B', 'IH', 'AA', 'K', 'OW'] },
  ];

  it('reads dictionary words without alternate markers', () => {
    expect(dictionaryWords('a AH\na(2) EY\nabbey AE B IY\n')).toEqual(new Set(['a', 'abbey']));
  });

  it('writes dictionary lines, one class of the words, and the control file naming the base model', () => {
    expect(dictionaryLines(entries)).toBe('sweynheim S W EY N HH AY M\nsubiaco S AH B IH AA K OW\n');
    expect(classDefinition(entries)).toBe('LMCLASS [VOCABULARY]\nsweynheim 1\nsubiaco 1\nEND [VOCABULARY]\n');
    expect(languageModelControl('/t/v.classdef', '/m/en-us.lm.bin')).toBe('{ /t/v.classdef }\n/m/en-us.lm.bin base { [VOCABULARY] }\n');
  });
});
