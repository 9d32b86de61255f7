/**
 * British citation forms of English function words that the model's American dictionary (cmudict) lacks:
 * "of" as /ɒv/, "from" /frɒm/, "what" /wɒt/, where cmudict has only the American vowel. Speakers taught
 * British English say these, as do many second-language speakers (bench/asr/README.md, "British forms of the
 * function words").
 *
 * Made by `britishForms` from espeak-ng 1.51's `en-gb` voice, each word of `FUNCTION_WORDS` said alone and its
 * IPA mapped to the model's phones; british-forms.test.ts makes the table again and compares. It is written out
 * rather than made when the recognizer starts because espeak-ng takes about 30 ms a word (4 s for the list).
 */
export const BRITISH_FUNCTION_WORD_FORMS: Readonly<Record<string, readonly string[]>> = {
  what: ['W', 'AA', 'T'],
  every: ['EH', 'V', 'R', 'IH'],
  been: ['B', 'IY', 'N'],
  of: ['AA', 'V'],
  into: ['IH', 'N', 'T', 'UH'],
  during: ['D', 'Y', 'UH', 'AH', 'R', 'IH', 'NG'],
  from: ['F', 'R', 'AA', 'M'],
  off: ['AA', 'F'],
  around: ['AH', 'R', 'AW', 'N', 'D'],
  along: ['AH', 'L', 'AA', 'NG'],
  beyond: ['B', 'IH', 'Y', 'AA', 'N', 'D'],
  across: ['AH', 'K', 'R', 'AA', 'S'],
};

const rhotic = (phones: readonly string[]): boolean => phones.some((p) => p === 'R' || p === 'ER');

/**
 * The British forms worth adding: each word's `british` pronunciation that its `american` ones lack, unless it
 * drops an r they have. Non-rhotic forms make homophones of common pairs (or/awe, for/faw, are/ah), and with
 * them the tuning half lost words (390 errors against 383 without them).
 */
export function britishForms(
  american: ReadonlyMap<string, readonly (readonly string[])[]>,
  british: ReadonlyMap<string, readonly string[]>,
): Record<string, string[]> {
  const forms: Record<string, string[]> = {};
  for (const [word, phones] of british) {
    const known = american.get(word) ?? [];
    if (known.some((p) => p.join(' ') === phones.join(' '))) continue;
    if (!rhotic(phones) && known.some(rhotic)) continue;
    forms[word] = [...phones];
  }
  return forms;
}
