import { randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { BRITISH_FUNCTION_WORD_FORMS } from './british-forms';
import type { PocketSphinxModel } from './model';
import { dictionaryLines, type VocabularyEntry } from './vocabulary';

/**
 * Function words of English (pronouns, determiners, auxiliaries and modals, prepositions, conjunctions): the
 * closed classes, written out here rather than taken from a data set. They are short, frequent and mostly
 * unstressed, which is where a final voiced consonant is most often devoiced: by many second-language
 * accents and in fast native speech before a voiceless sound ("of course", "has to").
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
  herself it its itself they them their theirs themselves who whom whose which what that this these those
  a an the some any no every each either neither both all few many much more most other another such
  am is are was were be been being have has had having do does did doing can could shall should will would may
  might must
  of at by for with about against between into through during before after above below to from up down in out
  on off over under around along among beside besides behind beyond toward towards upon within without across
  and but or nor so yet if because as than while whether though although unless until since
  not then there here when where why how`
    .split(/\s+/)
    .filter(Boolean),
);

/** Each voiced obstruent of the model's phone set and its voiceless partner. */
const DEVOICED: Readonly<Record<string, string>> = {
  B: 'P',
  D: 'T',
  G: 'K',
  V: 'F',
  Z: 'S',
  DH: 'TH',
  ZH: 'SH',
  JH: 'CH',
};

/** The pronunciations the dictionary gives each of `words` (those it has), in the dictionary's order. */
export function listedPronunciations(
  dictionary: string,
  words: ReadonlySet<string>,
): Map<string, string[][]> {
  const pronunciations = new Map<string, string[][]>();
  // Only the listed words' lines (a few dozen of ~135 000), found by one scan rather than a split of every line.
  const listed = [...words].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  for (const m of dictionary.matchAll(new RegExp(`^(${listed})(?:\\(\\d+\\))?[ \\t]+(.+)$`, 'gm'))) {
    const [, word, rest] = m as unknown as [string, string, string];
    pronunciations.set(word, [...(pronunciations.get(word) ?? []), rest.trim().split(/\s+/)]);
  }
  return pronunciations;
}

/**
 * Dictionary lines (`word(N) PHONES`) with the variants of `words`: first each `added` form the word lacks (the
 * British forms), then, for each pronunciation ending in a voiced obstruent (the dictionary's and the added),
 * a variant with that consonant devoiced ("of" AH V → AH F), unless the word already has it. The language model
 * is unchanged: a variant is the same word, heard another way. (bench/asr/README.md, "Pronunciation variants"
 * and "British forms of the function words": fewer errors on both halves, the accented reader's; the decoder's
 * work within 1 %.)
 */
export function pronunciationVariantLines(
  dictionary: string,
  words: ReadonlySet<string>,
  added: Readonly<Record<string, readonly string[]>> = {},
): string {
  const entries: VocabularyEntry[] = [];
  for (const [word, prons] of listedPronunciations(dictionary, words)) {
    const known = new Set(prons.map((p) => p.join(' ')));
    let count = prons.length;
    const add = (phones: string[]) => {
      if (known.has(phones.join(' '))) return;
      known.add(phones.join(' '));
      entries.push({ word: `${word}(${++count})`, phones });
    };
    const british = added[word];
    if (british) add([...british]);
    // The added form is devoiced as the dictionary's own are.
    for (const phones of british ? [...prons, british] : prons) {
      const voiceless = DEVOICED[phones.at(-1)!];
      if (voiceless) add([...phones.slice(0, -1), voiceless]);
    }
  }
  return dictionaryLines(entries);
}

/**
 * The model with a copy of its dictionary that has the function words' British forms and devoiced variants,
 * written into `dir` (a private name; `remove` deletes it). Recognition uses it; alignment and adaptation keep
 * the model's own dictionary.
 */
export function withPronunciationVariants(
  model: PocketSphinxModel,
  dir: string,
): { model: PocketSphinxModel; remove(): void } {
  const source = readFileSync(model.dict, 'utf8');
  const dict = path.join(dir, `takeline-dictionary-${randomUUID()}.dict`);
  const partial = `${dict}.partial`;
  // As the vocabulary's dictionaries are made (vocabulary-decoders.ts): the model's file copied, lines appended.
  copyFileSync(model.dict, partial);
  appendFileSync(
    partial,
    `${source.endsWith('\n') ? '' : '\n'}${pronunciationVariantLines(source, FUNCTION_WORDS, BRITISH_FUNCTION_WORD_FORMS)}`,
  );
  renameSync(partial, dict);
  return { model: { ...model, dict }, remove: () => rmSync(dict, { force: true }) };
}
