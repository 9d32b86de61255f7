import { describe, expect, it } from 'vitest';
import { correctionLearning, newVocabularyTerms, typedTerm, typedWords } from './correction-learning';
import type { Transcript } from '../speech/types';

const dictionary = new Set(['the', 'printer', 'was', 'in', 'rome', "don't"]);

describe('typedTerm', () => {
  it('keeps the editor’s spelling without the punctuation around it', () => {
    expect(typedTerm('Sweynheim,')).toBe('Sweynheim');
    expect(typedTerm('“McAllister’s”')).toBe("McAllister's");
  });
  it('refuses what the recognizer cannot be given: digits, other scripts, single letters', () => {
    expect(typedTerm('1835')).toBeNull();
    expect(typedTerm('Zürich')).toBeNull();
    expect(typedTerm('a')).toBeNull();
    expect(typedTerm('—')).toBeNull();
  });
});

describe('newVocabularyTerms', () => {
  it('proposes typed words the dictionary lacks, once, in order, skipping those the vocabulary holds', () => {
    const typed = ['The', 'printer', 'Sweynheim,', 'was', 'in', 'Rome', 'with', 'Pannartz.', 'sweynheim', 'Okonkwo'];
    // "with" is not in this small dictionary either: every typed word is judged by the dictionary alone.
    expect(newVocabularyTerms(typed, dictionary, ['Chidi Okonkwo'])).toEqual(['Sweynheim', 'with', 'Pannartz']);
  });
  it('adds no more than the vocabulary’s limit leaves room for', () => {
    const full = Array.from({ length: 499 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${i}`);
    expect(newVocabularyTerms(['Sweynheim', 'Pannartz'], dictionary, full)).toEqual(['Sweynheim']);
  });
});

describe('typedWords', () => {
  const transcript = {
    segments: [{ words: [{ word: 'Hello,' }, { word: 'Ada.' }] }, { words: [{ word: 'Bye' }] }],
  } as unknown as Transcript;
  it('takes a correction’s new line texts, or every word of an aligned script', () => {
    expect(typedWords({ op: 'edit_text', lines: [{ after: 'the Sweynheim press' }] }, transcript)).toEqual(['the', 'Sweynheim', 'press']);
    expect(typedWords({ op: 'align_script' }, transcript)).toEqual(['Hello,', 'Ada.', 'Bye']);
  });
});

describe('correctionLearning', () => {
  /** The project store's vocabulary, in memory. */
  const projectsWith = (stored: Map<string, string[]>, onWrite = () => {}) => ({
    vocabulary: async (id: string) => stored.get(id) ?? [],
    setVocabulary: async (id: string, terms: readonly string[]) => (onWrite(), stored.set(id, [...terms]), [...terms]),
  });

  it('appends the new terms to the project’s vocabulary and says which', async () => {
    const stored = new Map([['p', ['Takeline']]]);
    const learning = correctionLearning({ dictionary: () => dictionary, relearn: async () => {} });
    expect(await learning.learnWords(projectsWith(stored), 'p', ['the', 'Sweynheim', 'takeline'])).toEqual(['Sweynheim']);
    expect(stored.get('p')).toEqual(['Takeline', 'Sweynheim']);
    expect(await learning.learnWords(projectsWith(stored), 'p', ['Sweynheim'])).toEqual([]);
  });
  it('learns nothing without a dictionary to compare with', async () => {
    let written = false;
    const learning = correctionLearning({ dictionary: () => null, relearn: async () => {} });
    expect(await learning.learnWords(projectsWith(new Map(), () => (written = true)), 'p', ['Sweynheim'])).toEqual([]);
    expect(written).toBe(false);
  });
});
