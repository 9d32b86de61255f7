/**
 * A request's own words for PocketSphinx: words of its prompt and of the project's vocabulary that the
 * pronunciation dictionary lacks are added to a copy of the dictionary (pronunciations from espeak-ng,
 * ipa-arpabet.ts) and to the trigram model as classes of one word each. The decoder reads classes from a
 * language-model control file (`-lmctl`): each class becomes a new unigram with the uniform probability
 * 1/N (N ≈ 134 k words, so above most rare words already in the model), backed off from any history.
 * That is the language-model boost the command-line decoder allows without rebuilding the 27 MB model:
 * PocketSphinx refuses class members that are already in the model ("Omit duplicate word"), so words
 * the dictionary has keep the probability they had (measured: adding them changes nothing).
 */

/** Words per request that get their own entries; more is a document, not a vocabulary. */
export const MAX_VOCABULARY_WORDS = 200;

/** Lower-case words of free text (letters and inner apostrophes), each once, in order of appearance. */
export function vocabularyWords(texts: readonly (string | undefined)[]): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    for (const token of (text ?? '').toLowerCase().replace(/’/g, "'").split(/[^\p{L}']+/u)) {
      const word = token.replace(/^'+|'+$/g, '');
      // Letters a-z only: the dictionary and espeak-ng's English voice have nothing for other scripts.
      if (word.length >= 2 && word.length <= 40 && /^[a-z][a-z']*$/.test(word)) words.add(word);
    }
  }
  return [...words].slice(0, MAX_VOCABULARY_WORDS);
}

/** The words of a dictionary file (`word PHONES`, alternates as `word(2) PHONES`). */
export function dictionaryWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const line of text.split('\n')) {
    const end = line.indexOf(' ');
    if (end > 0) words.add(line.slice(0, end).replace(/\(\d+\)$/, ''));
  }
  return words;
}

export interface VocabularyEntry {
  word: string;
  phones: string[];
}

/** Lines to append to the dictionary. */
export function dictionaryLines(entries: readonly VocabularyEntry[]): string {
  return entries.map((e) => `${e.word} ${e.phones.join(' ')}\n`).join('');
}

/** The class of the request's words, each equally likely within it. */
export function classDefinition(entries: readonly VocabularyEntry[]): string {
  return `LMCLASS [VOCABULARY]\n${entries.map((e) => `${e.word} 1\n`).join('')}END [VOCABULARY]\n`;
}

/** The `-lmctl` file: the class file, then the base model, named `base`, with the class. */
export function languageModelControl(classFile: string, lm: string): string {
  return `{ ${classFile} }\n${lm} base { [VOCABULARY] }\n`;
}
