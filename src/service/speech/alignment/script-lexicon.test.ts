import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findOnPath, resolvePocketSphinxModel } from '../recognition/pocketsphinx/model';
import { dictionaryWords } from '../recognition/pocketsphinx/vocabulary';
import { scriptLexicon } from './script-lexicon';

const model = resolvePocketSphinxModel();
const ready = existsSync(model.dict) && findOnPath('espeak-ng', process.env) !== undefined;

describe.runIf(ready)('scriptLexicon', () => {
  it('pronounces the words the dictionary lacks (as the vocabulary does) in a copy of it, and cleans up', async () => {
    const known = dictionaryWords(readFileSync(model.dict, 'utf8'));
    expect(known.has('takeline')).toBe(false);
    const lexicon = await scriptLexicon(model.dict, ['the', 'takeline', 'takeline', 'studio', '1455']);
    try {
      expect(lexicon.added).toEqual(['takeline']);
      expect(lexicon.missing).toEqual([]);
      const copy = readFileSync(lexicon.dictionary!, 'utf8');
      expect(copy.startsWith(readFileSync(model.dict, 'utf8'))).toBe(true);
      expect(copy).toMatch(/\ntakeline [A-Z]+( [A-Z]+)+\n$/);
    } finally {
      lexicon.dispose();
    }
    expect(existsSync(lexicon.dictionary!)).toBe(false);
  });

  it('adds nothing when every word is known', async () => {
    const lexicon = await scriptLexicon(model.dict, ['the', 'studio']);
    expect(lexicon).toMatchObject({ dictionary: null, added: [], missing: [] });
  });
});
