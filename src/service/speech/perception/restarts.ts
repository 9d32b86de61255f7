import { isFillerWord, lexicalForm } from '../delivery/syllables';

/**
 * False starts and restarts (README "Restarts"): the same one to three words said twice in a row, fillers
 * between them allowed ("I I think", "we went uh we went"). The restart is the first telling; trimming
 * [first.start, second.start) leaves the clean one.
 */
export interface Restart {
  /** Index of the first word of the abandoned telling. */
  first: number;
  /** Index of the first word of the repeat. */
  repeat: number;
  words: string;
}

export const MAX_RESTART_WORDS = 3;

export function findRestarts(words: ReadonlyArray<{ word: string }>): Restart[] {
  const lexical = words.map((w, i) => ({ form: lexicalForm(w.word), i })).filter(({ form }, j) => form !== '' && !isFillerWord(words[j]!.word));
  const out: Restart[] = [];
  let j = 0;
  while (j < lexical.length) {
    let found = 0;
    for (let k = MAX_RESTART_WORDS; k >= 1 && !found; k--) {
      if (j + 2 * k > lexical.length) continue;
      let same = true;
      for (let m = 0; m < k && same; m++) same = lexical[j + m]!.form === lexical[j + k + m]!.form;
      if (same) found = k;
    }
    if (found) {
      out.push({
        first: lexical[j]!.i,
        repeat: lexical[j + found]!.i,
        words: lexical
          .slice(j, j + found)
          .map((l) => words[l.i]!.word)
          .join(' '),
      });
      j += found;
    } else j++;
  }
  return out;
}
