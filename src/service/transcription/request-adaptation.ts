import { bestKnownVoice } from '../speakers/project-speakers';
import type { VoiceMatcher } from '../speakers/voice-matching';
import { alignableWords } from '../speakers/speaker-adaptation';
import type { SpeakerChunk } from '../speech/recognition/pocketsphinx/adaptation';
import type { BatchEstimator } from '../speech/recognition/pocketsphinx/batch-mllr';
import { float32ToInt16Le } from '../speech/recognition/pocketsphinx/pcm';
import { SAMPLE_RATE, type RecognizedSegment, type Recognizer, type RecognizeOptions } from '../speech/types';
import { chunkProfiles, type ChunkProfiles } from './chunk-profiles';

/** Statistics are added at least every 2 minutes of a voice's speech (one bw start, ≈ 0.4 s, each). */
export const WITHIN_RECORDING_MAX_BATCH_SECONDS = 120;

export interface RequestAdaptationSettings {
  /** A voice's statistics are updated once its new speech reaches its speech so far, or this many seconds. */
  maxBatchSeconds: number;
  /**
   * Chunk i may use a transform started by chunk i − lag or earlier, and waits for chunk i − lag's words: the
   * decoders working at once. (Two more let the estimate finish unwaited but adapt fewer chunks: on 5 min of
   * long/ 9 chunks instead of 13, 36.4 % WER instead of 35.0 %; tuning half 31.4 against 29.7 %, test 43.7
   * against 42.8 %.)
   */
  lag: number;
  /** Told why an estimate failed (the voice goes on with the transform it had). */
  log?: (line: string) => void;
}

export interface RequestAdaptationUse {
  /** Chunks decoded. */
  chunks: number;
  voices: number;
  /** Chunks decoded with a transform fitted earlier in this request. */
  adaptedChunks: number;
  estimates: number;
}

interface Voice {
  index: number;
  profile: number[];
  seconds: number;
  /** Chunks recognised since the last estimate, in chunk order. */
  pending: SpeakerChunk[];
  pendingSeconds: number;
  estimatedSeconds: number;
  /** Transforms in the order they were started, each with the chunk whose words started it. */
  versions: Array<{ trigger: number; file: Promise<string | null> }>;
}

/**
 * Online MLLR within one recording (bench/pipeline, "Adaptation within a recording"): each chunk is given to
 * the voice it sounds like (the chunk's profile against the voices so far, at the matcher's threshold; else a
 * new voice), decoded with that voice's transform if it has one, and its words added to the voice. Once a
 * voice has the estimator's `minSeconds` of recognised speech, and again each time its new speech reaches what it had (at
 * least every `maxBatchSeconds`), its statistics are updated and its transform solved, in the background;
 * later chunks of that voice use it. Nothing is decoded twice.
 *
 * Deterministic whatever the decoders' timing: chunks are numbered in the order they are called, given to
 * voices in that order, and their words added in that order; chunk i uses the newest transform started by a
 * chunk up to i − lag, and waits for it if it is not done yet. (Using re-estimates 4 chunks later, so that
 * the decoders need not wait for them, did not shorten the wall time on long/ and lost 10 words: tuning half
 * 39.1 against 38.6 %, test 42.8 against 42.3 %.)
 */
export function requestAdaptingRecognizer(
  recognizer: Recognizer,
  estimator: BatchEstimator,
  matcher: VoiceMatcher,
  dictionary: ReadonlySet<string>,
  settings: RequestAdaptationSettings,
  profiles: ChunkProfiles = chunkProfiles(),
): { recognizer: Recognizer; use(): RequestAdaptationUse } {
  const voices: Voice[] = [];
  /** Per chunk: given its voice; its words added (or failed). */
  const assigned: Array<Promise<void>> = [];
  const added: Array<Promise<void>> = [];
  let estimates: Promise<unknown> = Promise.resolve();
  let estimateCount = 0;
  let adaptedChunks = 0;
  let calls = 0;

  const voiceOf = (pcm: Float32Array): Voice | null => {
    const seconds = pcm.length / SAMPLE_RATE;
    // A chunk with no profile decodes un-adapted; the chunks after it are not held up.
    const profile = profiles.of(pcm);
    if (!profile) return null;
    const known = voices.map((v) => ({ id: String(v.index), profile: v.profile, voice: v }));
    const { best, matched } = bestKnownVoice(profile, known, new Set(), matcher);
    let voice = matched && best ? best.voice : null;
    if (voice) voice.profile = matcher.merge(voice.profile, voice.seconds, profile, seconds);
    else {
      voice = {
        index: voices.length,
        profile,
        seconds: 0,
        pending: [],
        pendingSeconds: 0,
        estimatedSeconds: 0,
        versions: [],
      };
      voices.push(voice);
    }
    voice.seconds += seconds;
    return voice;
  };

  /** The newest transform started by a chunk up to `upTo` that was solved (null: none yet). */
  const transformFor = async (voice: Voice, upTo: number): Promise<string | null> => {
    const usable = voice.versions.filter((v) => v.trigger <= upTo);
    for (let k = usable.length - 1; k >= 0; k--) {
      const file = await usable[k]!.file;
      if (file) return file;
    }
    return null;
  };

  const addChunk = (
    voice: Voice,
    index: number,
    pcm: Float32Array,
    segments: readonly RecognizedSegment[],
  ) => {
    // A chunk with a word outside the dictionary is left out whole.
    const words = alignableWords(
      segments.flatMap((s) => s.words),
      dictionary,
    );
    if (!words?.length) return;
    voice.pending.push({ id: `c${index}`, pcm: float32ToInt16Le(pcm), hypothesis: words.join(' ') });
    voice.pendingSeconds += pcm.length / SAMPLE_RATE;
    const total = voice.estimatedSeconds + voice.pendingSeconds;
    if (
      total < estimator.minSeconds ||
      voice.pendingSeconds < Math.min(voice.estimatedSeconds, settings.maxBatchSeconds)
    )
      return;
    const batch = voice.pending;
    const previous = transformFor(voice, index);
    voice.pending = [];
    voice.estimatedSeconds = total;
    voice.pendingSeconds = 0;
    estimateCount++;
    // One estimate at a time, in the order started; each aligns along the voice's transform before it.
    const file = estimates
      .then(async () => estimator.estimate(voice.index, batch, await previous))
      .catch((error: unknown) => {
        // Stopped at the recording's end: nothing to say.
        if ((error as Error)?.name !== 'AbortError')
          settings.log?.(
            `adaptation within the recording: voice ${voice.index + 1} not re-estimated (${(error as Error)?.message ?? String(error)})`,
          );
        return null;
      });
    estimates = file;
    voice.versions.push({ trigger: index, file });
  };

  return {
    recognizer: {
      id: recognizer.id,
      writesText: recognizer.writesText,
      prepare: () => recognizer.prepare?.(),
      recognize: async (pcm: Float32Array, options: RecognizeOptions = {}) => {
        const index = calls++;
        const before = index > 0 ? assigned[index - 1]! : Promise.resolve();
        const settled = index >= settings.lag ? added[index - settings.lag]! : Promise.resolve();
        let voice: Voice | null = null;
        assigned[index] = before.then(() => {
          voice = voiceOf(pcm);
        });
        let segments: RecognizedSegment[] | null = null;
        const decoded = (async () => {
          await assigned[index];
          await settled;
          options.signal?.throwIfAborted();
          const transform = voice ? await transformFor(voice, index - settings.lag) : null;
          if (transform) adaptedChunks++;
          // A project speaker's transform (adaptingRecognizer, inside) replaces this one where it matches.
          segments = await recognizer.recognize(pcm, transform ? { ...options, mllr: transform } : options);
          return segments;
        })();
        const previousAdded = index > 0 ? added[index - 1]! : Promise.resolve();
        added[index] = Promise.allSettled([decoded, previousAdded]).then(() => {
          if (voice && segments) addChunk(voice, index, pcm, segments);
        });
        return decoded;
      },
      close: async () => {
        await Promise.allSettled(added);
        // No chunk is left to use an estimate still running: the estimator stops it.
        await estimator.close();
        await estimates;
      },
    },
    use: () => ({ chunks: calls, voices: voices.length, adaptedChunks, estimates: estimateCount }),
  };
}
