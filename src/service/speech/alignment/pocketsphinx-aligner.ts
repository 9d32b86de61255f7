import { readFile } from 'node:fs/promises';
import { SAMPLE_RATE, type Aligner, type RecognizedWord, type Span } from '../types';
import { DecoderPool } from '../recognition/pocketsphinx/decoder-pool';
import { ALIGNMENT_ARGS } from '../recognition/pocketsphinx/decoder-args';
import { assertPocketSphinxAvailable } from '../recognition/pocketsphinx/model';
import { baseWord, FRAME_RATE, isFiller } from '../recognition/pocketsphinx/output';
import { float32ToInt16Le } from '../recognition/pocketsphinx/pcm';
import { linearGrammar, planAlignment } from './plan';
import { assignTimes, type DecodedWord } from './timing';

export interface PocketSphinxAlignerOptions {
  /** Parallel decoder processes. Default 1: alignment is occasional (corrections, dubbing). */
  workers?: number;
  /** Decoder flags merged over the alignment defaults. */
  decoderArgs?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
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
      const { pool: decoders, dictionary: dict } = setup();
      const words = await dict;
      const tokens = planAlignment(text, (w) => words.has(w));
      if (!tokens.length) return [];
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
      await pool?.close();
      pool = null;
      dictionary = null;
    },
  };
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
