import { statSync } from 'node:fs';
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
import { processEnvironment } from '../../config';

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
      espeak: (options.env ?? processEnvironment()).TAKELINE_ESPEAK_NG || 'espeak-ng',
      tempDir: options.tempDir,
      mllr: adaptation,
    });
    return (await vocabulary.poolFor(words))?.pool ?? getPool();
  };

  // A speaker's MAP-adapted means (RecognizeOptions.means) are a model of their own: decoders loading them with
  // `-mean` (no per-utterance transform: the speaker's is in them), one family per version of the file, the two
  // most recently used kept and any idle for two minutes closed (each process holds ~120 MB).
  const meansFamilies = new Map<string, { means: string; pool: DecoderPool; vocabulary: VocabularyDecoders | null; lastUsed: number }>();
  let meansTimer: NodeJS.Timeout | null = null;
  const dropFamily = (key: string) => {
    const family = meansFamilies.get(key);
    if (!family) return;
    meansFamilies.delete(key);
    void family.pool.close();
    void family.vocabulary?.close();
  };
  const meansPoolFor = async (means: string, opts: RecognizeOptions): Promise<{ key: string; pool: DecoderPool }> => {
    // A file replaced by a newer estimate is a new family (the old one's processes loaded the old means).
    const key = `${means}\u0000${statSync(means).mtimeMs}`;
    let family = meansFamilies.get(key);
    if (!family) {
      const meansArgs = { ...args, '-mean': means };
      family = { means, pool: new DecoderPool({ model: decodingModel(), args: meansArgs, tempDir: options.tempDir }, workers), vocabulary: null, lastUsed: 0 };
      meansFamilies.set(key, family);
      for (const [other, f] of [...meansFamilies].sort((a, b) => a[1].lastUsed - b[1].lastUsed).slice(0, Math.max(0, meansFamilies.size - 2))) {
        if (f !== family) dropFamily(other);
      }
    }
    family.lastUsed = Date.now();
    meansTimer ??= setInterval(() => {
      for (const [k, f] of meansFamilies) if (Date.now() - f.lastUsed > 120_000) dropFamily(k);
      if (meansFamilies.size === 0 && meansTimer) {
        clearInterval(meansTimer);
        meansTimer = null;
      }
    }, 30_000).unref();
    const words = vocabularyWords([opts.prompt, ...(opts.vocabulary ?? [])]);
    if (words.length === 0) return { key, pool: family.pool };
    family.vocabulary ??= new VocabularyDecoders({
      model: decodingModel(),
      args: { ...args, '-mean': means },
      workers,
      espeak: (options.env ?? processEnvironment()).TAKELINE_ESPEAK_NG || 'espeak-ng',
      tempDir: options.tempDir,
    });
    return { key, pool: (await family.vocabulary.poolFor(words))?.pool ?? family.pool };
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
      const means = adaptation ? opts.means : undefined;
      if (means) {
        let family: { key: string; pool: DecoderPool } | null = null;
        try {
          family = await meansPoolFor(means, opts);
          return wordsToSegments(await decode(family.pool), pause);
        } catch (error) {
          if (opts.signal?.aborted) throw error;
          // Means that cannot be read (removed by a newer estimate meanwhile) or loaded: the chunk decodes with the
          // speaker's transform, as without means (and that family is not used again).
          if (family) dropFamily(family.key);
          const fallback = await poolFor(opts);
          const mllr = adaptation ? opts.mllr : undefined;
          try {
            return wordsToSegments(await decode(fallback, mllr), pause);
          } catch (plainError) {
            if (!mllr || opts.signal?.aborted) throw plainError;
            return wordsToSegments(await decode(fallback), pause);
          }
        }
      }
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
      const families = [...meansFamilies.values()];
      meansFamilies.clear();
      if (meansTimer) clearInterval(meansTimer);
      meansTimer = null;
      await Promise.all([pool?.close(), vocabulary?.close(), ...families.flatMap((f) => [f.pool.close(), f.vocabulary?.close()])]);
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
