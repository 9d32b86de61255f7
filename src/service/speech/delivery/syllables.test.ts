import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isFillerWord, lexicalForm, spelledSyllables, SyllableDictionary } from './syllables';
import { DEFAULT_MODEL_DIR } from '../recognition/pocketsphinx/model';

describe('syllables', () => {
  const dict = SyllableDictionary.parse(['hello HH AH L OW', 'hello(2) HH EH L OW', 'the DH AH', 'rhythm R IH DH AH M', 'uh AH', "don't D OW N T"].join('\n'));

  it('counts vowel phones of the first pronunciation', () => {
    expect(dict.count('hello')).toBe(2);
    expect(dict.count('Hello,')).toBe(2);
    expect(dict.count('the')).toBe(1);
    expect(dict.count('rhythm')).toBe(2);
    expect(dict.count("Don't.")).toBe(1);
  });

  it('gives fillers no syllables and spells out words the dictionary lacks', () => {
    expect(dict.count('uh')).toBe(0);
    expect(isFillerWord('Um,')).toBe(true);
    expect(isFillerWord('umbrella')).toBe(false);
    expect(dict.count('zorblat')).toBe(2);
    expect(spelledSyllables('banana')).toBe(3);
    expect(spelledSyllables('make')).toBe(1);
    expect(spelledSyllables('table')).toBe(2);
    expect(spelledSyllables('gym')).toBe(1);
    expect(spelledSyllables('42')).toBe(2);
    expect(lexicalForm('"Ada’s"')).toBe("ada's");
  });

  it.runIf(fs.existsSync(`${DEFAULT_MODEL_DIR}/cmudict-en-us.dict`))('reads the recognizer’s own dictionary', () => {
    const cmu = SyllableDictionary.load(`${DEFAULT_MODEL_DIR}/cmudict-en-us.dict`);
    expect(cmu.count('international')).toBe(5);
    expect(cmu.count('printing')).toBe(2);
    expect(cmu.has('printing')).toBe(true);
  });

  it.runIf(fs.existsSync(`${DEFAULT_MODEL_DIR}/cmudict-en-us.dict`))('keeps only the words asked for, with the whole dictionary’s counts', () => {
    const file = `${DEFAULT_MODEL_DIR}/cmudict-en-us.dict`;
    const cmu = SyllableDictionary.load(file);
    // Every 50th entry's word, as a transcript would write them (case, punctuation), and words the dictionary lacks.
    const heads = fs.readFileSync(file, 'utf8').split('\n').filter((_, i) => i % 50 === 0).map((l) => l.split(' ')[0]!).filter((h) => h && !h.endsWith(')'));
    const asked = [...heads.map((h, i) => (i % 3 === 0 ? `${h.toUpperCase()},` : h)), 'zorblat', 'Um'];
    const some = SyllableDictionary.load(file, asked);
    expect(heads.length).toBeGreaterThan(2000);
    for (const word of asked) {
      expect(some.count(word)).toBe(cmu.count(word));
      expect(some.has(word)).toBe(cmu.has(word));
    }
    expect(some.has('international')).toBe(heads.includes('international'));
  });
});
