import os from 'node:os';
import {
  SAMPLE_RATE,
  type RecognizeOptions,
  type RecognizedSegment,
  type RecognizedWord,
  type Recognizer,
} from '../types';
import { DecoderPool } from './pocketsphinx/decoder-pool';
import { RECOGNITION_ARGS } from './pocketsphinx/decoder-args';
import { assertPocketSphinxAvailable, type PocketSphinxModel } from './pocketsphinx/model';
import { float32ToInt16Le, splitPoints } from './pocketsphinx/pcm';
import { withPronunciationVariants } from './pocketsphinx/pronunciation-variants';
import { wordsToSegments } from './pocketsphinx/segments';
import { VocabularyDecoders } from './pocketsphinx/vocabulary-decoders';
import { vocabularyWords } from './pocketsphinx/vocabulary';

export { pocketSphinxAvailable } from './pocketsphinx/model';

export interface PocketSphinxRecognizerOptions {
  /** Parallel decoder processes; default one per core, at most 2. */
  workers?: number;
  /** Decoder flags merged over the tuned defaults (`{ '-lw': '10' }`). */
  decoderArgs?: Record<string, string>;
  /** Longer chunks are cut at a quiet point into pieces of at most this length. Default 30 s. */
  maxPieceSeconds?: number;
  /** A pause this long starts a new segment. Default 0.6 s. */
  segmentPauseSeconds?: number;
  env?: NodeJS.ProcessEnv;
  /** Folder for the decoders' private folders (default the OS temp folder). */
  tempDir?: string;
  /**
   * Decode with a chunk's `mllr` transform (per-utterance `-mllrctl`; default true). Off, the option is
   * ignored and the decoders run exactly as before.
   */
  adaptation?: boolean;
  /**
   * Decode with the function words' British forms and devoiced pronunciations ("of" said /ɒv/ or "off";
   * default true; pocketsphinx/pronunciation-variants.ts). Off, the model's dictionary as it is.
   */
  pronunciationVariants?: boolean;
  /**
   * End the decoder processes after this many seconds without a chunk to decode (they start again for the
   * next one). Absent or 0: they stay up, as a benchmark decoding clip after clip wants.
   */
  idleSeconds?: number;
}

/**
 * CMU PocketSphinx (Debian's 5prealpha build and US English model) behind the Recognizer contract.
 *
 * `prompt` and `vocabulary` carry words: those the dictionary lacks get pronunciations from espeak-ng
 * and a unigram in the language model, decoded by a pool of their own (pocketsphinx/vocabulary.ts);
 * the rest of the prompt cannot bias the decoder (see there). Words come back bare and lower case; the
 * pipeline writes them as sentences (speech/text).
 */
export function createPocketSphinxRecognizer(options: PocketSphinxRecognizerOptions = {}): Recognizer {
  const workers = options.workers ?? Math.min(2, Math.max(1, os.availableParallelism()));
  const maxPiece = Math.round((options.maxPieceSeconds ?? 30) * SAMPLE_RATE);
  const pause = options.segmentPauseSeconds ?? 0.6;
  let pool: DecoderPool | null = null;
  let vocabulary: VocabularyDecoders | null = null;
  const args = { ...RECOGNITION_ARGS, ...options.decoderArgs };
  const adaptation = options.adaptation ?? true;
  let variants: { model: PocketSphinxModel; remove(): void } | null = null;
  const decodingModel = (): PocketSphinxModel => {
    const model = assertPocketSphinxAvailable(options.env);
    if (options.pronunciationVariants === false) return model;
    try {
      variants ??= withPronunciationVariants(model, options.tempDir ?? os.tmpdir());
    } catch {
      // The copy cannot be written (a full disk, say): the model's own dictionary decodes as well.
      variants = { model, remove: () => {} };
    }
    return variants.model;
  };

  // Model check and process start wait for the first chunk, so listing the engine costs nothing.
  const getPool = () => {
    if (!pool) {
      pool = new DecoderPool({ model: decodingModel(), args, tempDir: options.tempDir, mllr: adaptation }, workers, options.idleSeconds);
    }
    return pool;
  };
  const poolFor = async (opts: RecognizeOptions): Promise<DecoderPool> => {
    const words = vocabularyWords([opts.prompt, ...(opts.vocabulary ?? [])]);
    if (words.length === 0) return getPool();
    vocabulary ??= new VocabularyDecoders({
      model: decodingModel(),
      args,
      workers,
      espeak: (options.env ?? process.env).TAKELINE_ESPEAK_NG || 'espeak-ng',
      tempDir: options.tempDir,
      mllr: adaptation,
    });
    return (await vocabulary.poolFor(words))?.pool ?? getPool();
  };

  return {
    id: 'pocketsphinx-en-us',
    async recognize(pcm: Float32Array, opts: RecognizeOptions = {}): Promise<RecognizedSegment[]> {
      const offset = opts.offset ?? 0;
      const bounds = [0, ...splitPoints(pcm, maxPiece), pcm.length];
      const pieces = bounds.slice(1).map((end, i) => ({ start: bounds[i]!, end }));
      const decode = async (decoders: DecoderPool, mllr?: string) => {
        const results = await Promise.all(
          pieces.map(({ start, end }) =>
            decoders.run(async (worker) => {
              // Digital silence has no spectrum to normalise: the decoder's batch CMN then invents a word.
              if (isDigitalSilence(pcm, start, end)) return [];
              const { words } = await worker.decode(float32ToInt16Le(pcm.subarray(start, end)), undefined, opts.signal, mllr);
              const base = offset + start / SAMPLE_RATE;
              return words.map((w): RecognizedWord => ({
                word: w.word,
                start: round(base + w.start),
                end: round(base + w.start + w.duration),
                confidence: w.confidence,
              }));
            }, opts.signal),
          ),
        );
        return results.flat();
      };
      const decoders = await poolFor(opts);
      const shared = getPool();
      const mllr = adaptation ? opts.mllr : undefined;
      let words: RecognizedWord[];
      try {
        words = await decode(decoders, mllr);
      } catch (error) {
        if (opts.signal?.aborted) throw error;
        // A transform that cannot be read (replaced or removed meanwhile) or applied: the chunk decodes un-adapted.
        if (mllr) {
          try {
            return wordsToSegments(await decode(decoders), pause);
          } catch (plainError) {
            if (decoders === shared || opts.signal?.aborted) throw plainError;
          }
        }
        // (Another chunk's failure may have closed this pool under it: that shows as an AbortError too.)
        if (decoders === shared) throw error;
        // The class language model is the decoder's least trodden path (it has crashed with several classes):
        // a vocabulary that fails is dropped and the chunk decoded without it, rather than failing the request.
        await vocabulary?.discard(decoders);
        words = await decode(shared);
      }
      return wordsToSegments(words, pause);
    },
    prepare() {
      try {
        getPool().warm();
      } catch {
        // The model is missing: the first recognition says so.
      }
    },
    async close() {
      await Promise.all([pool?.close(), vocabulary?.close()]);
      pool = null;
      vocabulary = null;
      variants?.remove();
      variants = null;
    },
  };
}

function isDigitalSilence(pcm: Float32Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (Math.abs(pcm[i]!) >= 2 / 32768) return false;
  return true;
}

function round(t: number): number {
  return Math.round(t * 1000) / 1000;
}
