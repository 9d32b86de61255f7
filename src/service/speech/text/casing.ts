/**
 * Written forms of recognized words: the first word of a sentence capitalised, the pronoun "I" and its
 * contractions upper case, and words whose written form is known (a request's prompt, the project's
 * vocabulary: "Takeline", "McAllister") spelled that way. Everything else stays as the recognizer wrote it.
 */

const I_FORMS: ReadonlyMap<string, string> = new Map(
  ['i', "i'm", "i'll", "i've", "i'd"].map((w) => [w, 'I' + w.slice(1)]),
);

/**
 * Lower-case word → its written form, from free text: every token with a capital letter in it, except a
 * sentence's first word capitalised only because it starts the sentence ("Meeting with Siobhan" gives
 * "Siobhan", not "Meeting"). `terms` are a vocabulary list, each spelled as it should be written: every
 * capital there counts.
 */
export function writtenForms(texts: readonly string[], terms: readonly string[] = []): Map<string, string> {
  const forms = new Map<string, string>();
  for (const term of terms) {
    for (const match of term.matchAll(/[\p{L}\p{N}'’-]+/gu)) {
      const word = match[0].replace(/’/g, "'").replace(/^['-]+|['-]+$/g, '');
      if (/\p{Lu}/u.test(word)) forms.set(word.toLowerCase(), word);
    }
  }
  for (const text of texts) {
    for (const match of text.matchAll(/[\p{L}\p{N}'’-]+/gu)) {
      const word = match[0].replace(/’/g, "'").replace(/^['-]+|['-]+$/g, '');
      if (!/\p{Lu}/u.test(word)) continue;
      const startsSentence = /(^|[.!?:]["')\]]*)\s*$/u.test(text.slice(0, match.index));
      if (startsSentence && !/\p{Lu}/u.test(word.slice(1))) continue;
      if (!forms.has(word.toLowerCase())) forms.set(word.toLowerCase(), word);
    }
  }
  return forms;
}

/** The written form of one word; `sentenceStart` capitalises its first letter. */
export function caseWord(word: string, sentenceStart: boolean, forms: ReadonlyMap<string, string> = new Map()): string {
  const lower = word.toLowerCase();
  const cased = I_FORMS.get(lower) ?? forms.get(lower) ?? word;
  return sentenceStart ? cased.charAt(0).toUpperCase() + cased.slice(1) : cased;
}
