import fs from 'node:fs';

/** ARPAbet vowels (the CMU dictionary's syllable nuclei); stress digits, when present, are ignored. */
const VOWELS = new Set(['AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'EH', 'ER', 'EY', 'IH', 'IY', 'OW', 'OY', 'UH', 'UW']);

/** Non-lexical words a recognizer writes for hesitations; they count as filled pauses, not syllables. */
export const FILLER_WORDS: ReadonlySet<string> = new Set(['uh', 'um', 'uhm', 'er', 'erm', 'ah', 'hmm', 'mm', 'hm', 'eh']);

/** Lower-case, without surrounding punctuation (a transcript may carry sentence case and punctuation). */
export function lexicalForm(word: string): string {
  return word
    .toLowerCase()
    .replace(/\u2019/g, "'")
    .replace(/\(\d+\)$/, '')
    .replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, '');
}

export function isFillerWord(word: string): boolean {
  return FILLER_WORDS.has(lexicalForm(word));
}

/**
 * Syllables of a word the dictionary lacks, from its spelling: groups of vowel letters (y counts after a
 * consonant), less a silent final e; at least one. Digits count one per character (a rough reading).
 */
export function spelledSyllables(word: string): number {
  const w = lexicalForm(word).replace(/'/g, '');
  if (w === '') return 0;
  if (/^\d+$/.test(w)) return w.length;
  const groups = w.match(/[aeiou]+|(?<=[^aeiou])y/g)?.length ?? 0;
  const silentE = /[^aeiouy]e$/.test(w) && !/[^aeiouy]le$/.test(w) && groups > 1 ? 1 : 0;
  return Math.max(1, groups - silentE);
}

/**
 * Syllable counts from the pronunciation dictionary the recognizer ships (CMU format: `word PH PH …`,
 * alternates as `word(2)`): a word has as many syllables as vowel phones in its first pronunciation.
 */
export class SyllableDictionary {
  private constructor(private readonly counts: Map<string, number>) {}

  /**
   * `words`: only these words' entries are kept (lexical forms; a run's transcript words). Their counts are the
   * same as the whole dictionary's; the rest of the file is skimmed, not parsed: a 7-s recording's analysis spent
   * 1.6 CPU-s parsing all 135,000 entries to count a dozen words.
   */
  static parse(text: string, words?: Iterable<string>): SyllableDictionary {
    const only = words ? new Set(Array.from(words, lexicalForm)) : null;
    const counts = new Map<string, number>();
    for (let start = 0; start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const space = text.indexOf(' ', start);
      const line = start;
      start = end + 1;
      if (space <= line || space >= end) continue;
      const head = text.slice(line, space);
      if (head.endsWith(')')) continue; // alternates: the first pronunciation decides
      const key = head.toLowerCase();
      if (only && !only.has(key)) continue;
      let n = 0;
      for (const phone of text.slice(space + 1, end).trim().split(/\s+/)) if (VOWELS.has(phone.replace(/\d$/, ''))) n++;
      counts.set(key, n);
    }
    return new SyllableDictionary(counts);
  }

  static load(file: string, words?: Iterable<string>): SyllableDictionary {
    return SyllableDictionary.parse(fs.readFileSync(file, 'utf8'), words);
  }

  /** Syllables of a word; fillers count 0; words the dictionary lacks are counted from their spelling. */
  count(word: string): number {
    const w = lexicalForm(word);
    if (w === '' || FILLER_WORDS.has(w)) return 0;
    return this.counts.get(w) ?? spelledSyllables(w);
  }

  has(word: string): boolean {
    return this.counts.has(lexicalForm(word));
  }
}
