import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { espeakPronunciations } from '../recognition/pocketsphinx/pronounce';
import { dictionaryLines, dictionaryWords } from '../recognition/pocketsphinx/vocabulary';

/** Words given pronunciations per script; past this, the rest are spelled from dictionary parts or interpolated. */
export const MAX_LEXICON_WORDS = 2000;

export interface ScriptLexicon {
  /** A dictionary file: the model's, plus the added words (null when nothing was added). */
  dictionary: string | null;
  /** Words added, with espeak-ng's pronunciations. */
  added: string[];
  /** Words the dictionary lacks that got no pronunciation (espeak-ng missing, a symbol it cannot map, or the cap). */
  missing: string[];
  dispose(): void;
}

/**
 * The script's words the model dictionary lacks, pronounced as the vocabulary feature pronounces a
 * project's words (espeak-ng's letter-to-sound rules mapped to the model's phones, pronounce.ts), written
 * into a copy of the dictionary so the aligner's grammar can say them instead of interpolating their times.
 */
export async function scriptLexicon(modelDictionary: string, words: Iterable<string>, options: { espeak?: string; tempDir?: string; signal?: AbortSignal } = {}): Promise<ScriptLexicon> {
  const known = dictionaryWords(await readFile(modelDictionary, 'utf8'));
  const unknown = [...new Set(words)].filter((w) => !known.has(w) && /^[a-z][a-z']*$/.test(w) && w.length <= 40);
  const asked = unknown.slice(0, MAX_LEXICON_WORDS);
  const phones = asked.length ? await espeakPronunciations(asked, options.espeak, options.signal) : null;
  const entries = [...(phones ?? [])].map(([word, p]) => ({ word, phones: p }));
  const added = new Set(entries.map((e) => e.word));
  const missing = unknown.filter((w) => !added.has(w));
  if (!entries.length) return { dictionary: null, added: [], missing, dispose: () => {} };
  const dir = mkdtempSync(path.join(options.tempDir ?? os.tmpdir(), 'takeline-script-'));
  const dictionary = path.join(dir, 'script.dict');
  copyFileSync(modelDictionary, dictionary);
  appendFileSync(dictionary, dictionaryLines(entries));
  return { dictionary, added: [...added], missing, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
