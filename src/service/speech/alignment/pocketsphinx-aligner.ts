import { readFile } from 'node:fs/promises';
import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE_RATE, type Aligner, type RecognizedWord, type Span } from '../types';
import { DecoderPool } from '../recognition/pocketsphinx/decoder-pool';
import { ALIGNMENT_ARGS } from '../recognition/pocketsphinx/decoder-args';
import { assertPocketSphinxAvailable } from '../recognition/pocketsphinx/model';
import { baseWord, FRAME_RATE, isFiller } from '../recognition/pocketsphinx/output';
import { float32ToInt16Le } from '../recognition/pocketsphinx/pcm';
import { espeakPronunciations } from '../recognition/pocketsphinx/pronounce';
import { dictionaryLines } from '../recognition/pocketsphinx/vocabulary';
import { normalizeWords } from '../scoring/wer';
import { linearGrammar, planAlignment } from './plan';
import { assignTimes, type DecodedWord } from './timing';

export interface PocketSphinxAlignerOptions {
  /** Parallel decoder processes. Default 1: alignment is occasional (corrections, dubbing). */
  workers?: number;
  /** Decoder flags merged over the alignment defaults. */
  decoderArgs?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /**
   * Words the dictionary lacks (and that do not split into dictionary words) get pronunciations from
   * espeak-ng, as the recognizer's vocabulary feature makes them (pronounce.ts), and are aligned instead
   * of interpolated. Off by default; the program name (true = `espeak-ng`). Without espeak-ng installed
   * such words are interpolated as before.
   */
  pronounceUnknown?: boolean | string;
  /** Folder for the dictionaries with pronounced words and the decoders' folders (default the OS temp folder). */
  tempDir?: string;
  /** A pronunciation dictionary to use instead of the model's (the model's plus words it lacks: script-lexicon.ts). */
  dictionary?: string;
}

export interface ClosableAligner extends Aligner {
  close(): Promise<void>;
}

/**
 * Forced alignment with PocketSphinx: the known text becomes a linear finite-state grammar (silence and
 * noise fillers allowed between words), decoded by a long-lived pocketsphinx_batch in grammar mode.
 * Times come from the decoder's segmentation. Confidence is the decoder's word posterior over the
 * grammar's lattice, which is close to 1 whenever the grammar leaves no alternative; 0 marks a word
 * whose time was interpolated (out of vocabulary, or beyond where the decoder got). Meant for stretches
 * up to a few tens of seconds, like the recognizer's chunks.
 */
export function createPocketSphinxAligner(options: PocketSphinxAlignerOptions = {}): ClosableAligner {
  let pool: DecoderPool | null = null;
  let dictionary: Promise<Set<string>> | null = null;
  // Decoders whose dictionary has pronounced words, one per distinct set of such words; the last few stay warm.
  const pronounced = new Map<string, Promise<{ pool: DecoderPool; dir: string; words: Set<string> } | null>>();
  const espeak = options.pronounceUnknown === true ? 'espeak-ng' : options.pronounceUnknown || null;

  const pronouncedPool = (unknown: string[]) => {
    const key = [...unknown].sort().join(' ');
    let entry = pronounced.get(key);
    if (!entry) {
      entry = (async () => {
        const phones = await espeakPronunciations(unknown, espeak!);
        if (!phones?.size) return null;
        const model = assertPocketSphinxAvailable(options.env);
        const dir = mkdtempSync(path.join(options.tempDir ?? os.tmpdir(), 'takeline-align-'));
        const dict = path.join(dir, 'dictionary.dict');
        copyFileSync(model.dict, dict);
        appendFileSync(dict, dictionaryLines([...phones].map(([word, p]) => ({ word, phones: p }))));
        const extra = new DecoderPool({ model: { ...model, dict }, args: { ...ALIGNMENT_ARGS, ...options.decoderArgs }, grammar: true, tempDir: options.tempDir }, 1);
        return { pool: extra, dir, words: new Set(phones.keys()) };
      })();
      entry.catch(() => pronounced.delete(key));
      pronounced.set(key, entry);
      // Least recently added first: at most 2 such decoders (~120 MB each) stay.
      while (pronounced.size > 2) {
        const [oldKey, old] = pronounced.entries().next().value!;
        pronounced.delete(oldKey);
        void dropPronounced(old);
      }
    } else {
      pronounced.delete(key);
      pronounced.set(key, entry);
    }
    return entry;
  };

  const setup = () => {
    if (!pool) {
      const found = assertPocketSphinxAvailable(options.env);
      const model = options.dictionary ? { ...found, dict: options.dictionary } : found;
      pool = new DecoderPool(
        { model, args: { ...ALIGNMENT_ARGS, ...options.decoderArgs }, grammar: true },
        options.workers ?? 1,
      );
      dictionary = loadDictionary(model.dict);
      dictionary.catch(() => (dictionary = null));
    }
    return { pool, dictionary: dictionary! };
  };

  return {
    async align(pcm, text, opts = {}): Promise<RecognizedWord[]> {
      const offset = opts.offset ?? 0;
      const { pool: sharedDecoders, dictionary: dict } = setup();
      const words = await dict;
      let tokens = planAlignment(text, (w) => words.has(w));
      if (!tokens.length) return [];
      let decoders = sharedDecoders;
      if (espeak && tokens.some((t) => !t.words.length)) {
        const unknown = [...new Set(tokens.filter((t) => !t.words.length).flatMap((t) => normalizeWords(t.text)).filter((w) => !words.has(w)))];
        const extra = unknown.length ? await pronouncedPool(unknown) : null;
        if (extra) {
          tokens = planAlignment(text, (w) => words.has(w) || extra.words.has(w));
          decoders = extra.pool;
        }
      }
      const duration = pcm.length / SAMPLE_RATE;
      const grammarWords = tokens.flatMap((t) => t.words);
      let decoded: DecodedWord[] = [];
      let silences: Span[] = [];
      if (grammarWords.length) {
        const result = await decoders.run(
          (worker) => worker.decode(float32ToInt16Le(pcm), linearGrammar(grammarWords), opts.signal),
          opts.signal,
        );
        const real = (result.hypseg?.tokens ?? []).filter((t) => !isFiller(t.token));
        decoded = real.map((t, i) => ({
          word: baseWord(t.token),
          start: t.startFrame / FRAME_RATE,
          end: Math.min(duration, (t.endFrame + 1) / FRAME_RATE),
          // CTM lists the same real words in the same order, with their posteriors.
          confidence: result.words[i]?.word === baseWord(t.token) ? result.words[i]!.confidence : 0,
        }));
        silences = (result.hypseg?.tokens ?? [])
          .filter((t) => /^<.*>$/.test(t.token))
          .map((t) => ({
            start: t.startFrame / FRAME_RATE,
            end: Math.min(duration, (t.endFrame + 1) / FRAME_RATE),
          }));
      }
      return assignTimes(tokens, decoded, silences, duration).map((w) => ({
        ...w,
        start: round(offset + w.start),
        end: round(offset + w.end),
      }));
    },
    async close() {
      const extras = [...pronounced.values()];
      pronounced.clear();
      await Promise.all(extras.map(dropPronounced));
      await pool?.close();
      pool = null;
      dictionary = null;
    },
  };
}

async function dropPronounced(entry: Promise<{ pool: DecoderPool; dir: string } | null>): Promise<void> {
  const ready = await entry.catch(() => null);
  if (!ready) return;
  // Alignments already running finish first (close waits for them).
  await ready.pool.close();
  rmSync(ready.dir, { recursive: true, force: true });
}

/** The dictionary's words (alternate pronunciations folded), to keep the grammar within its vocabulary. */
async function loadDictionary(file: string): Promise<Set<string>> {
  const words = new Set<string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) words.add(baseWord(line.slice(0, space)));
  }
  return words;
}

function round(t: number): number {
  return Math.round(t * 1000) / 1000;
}
