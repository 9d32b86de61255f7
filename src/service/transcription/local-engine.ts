import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { MediaTools } from '../media/tools';
import { decodeAudioToArray } from '../media/decode';
import { JobFailure } from '../jobs/job-runner';
import { InvalidInputError, issue } from '../errors';
import type { Diarizer, Recognizer } from '../speech/types';
import { SAMPLE_RATE } from '../speech/types';
import { transcribeFile } from '../speech/pipeline/transcribe';
import { checkpointedRecognizer } from './chunk-checkpoints';
import { checkpointedDiarizer, checkpointedRefiner, type DiarizationCheckpoints, type SpeechRefiner } from './diarization-checkpoints';
import { createSileroVad, type SileroVad } from '../speech/vad/silero';
import { diarizeSpectral, DEFAULT_DIARIZER_SETTINGS } from '../speech/diarization/spectralDiarizer';
import { DiarizationThreads, ThreadedDiarizer } from './threaded-diarizer';
import { DIARIZATION_VAD, diarizationSpeech } from './diarization-speech';
import { createPocketSphinxRecognizer } from '../speech/recognition/pocketsphinx-recognizer';
import { decoderIdleSeconds, sileroModelPath } from '../config';
import type { Denoiser, Dereverberator } from '../speech/enhancement/types';
import { NOISY_BELOW_SNR_DB } from '../speech/enhancement/noisy-speech';
import { POCKETSPHINX_ID } from '../models/engines';
import type { VoiceMatcher } from '../speakers/voice-matching';
import type { TranscriptionEngine } from './engine';
import type { ResolvedEngine } from '../models/registry';
import { WhisperHostError } from '../speech/recognition/whisper/host-process';
import { withRequestOptions } from './request-recognizer';
import { retryingRecognizer } from './recognition-retry';
import { adaptingRecognizer } from './adapting-recognizer';
import { chunkProfiles } from './chunk-profiles';
import { requestAdaptingRecognizer, WITHIN_RECORDING_MAX_BATCH_SECONDS } from './request-adaptation';
import type { BatchEstimator } from '../speech/recognition/pocketsphinx/batch-mllr';

/**
 * The service's diarizer: spectral diarization on a worker thread, over speech spans found for
 * diarization (level-normalised audio, DIARIZATION_VAD). The thread and the detector's model are kept
 * between requests and ended by `close`. With `vad`, the detector runs on that detector's model (one ONNX
 * session for the service), which stays its owner's to close. Shared with bench/pipeline and bench/asr.
 */
export function createServiceDiarizer(options: { vad?: SileroVad } = {}): {
  diarizer: ThreadedDiarizer;
  /** The same diarizer for one durable job: its speech spans and result are checkpointed and reused. */
  checkpointed(checkpoints: DiarizationCheckpoints, onSpeechKept?: () => void): Diarizer;
  /** Starts the thread and loads the detector now (no-op when warm), so a request does not wait for them. */
  warm(): void;
  /** The diarization threads (for tests and benchmarks). */
  threads: DiarizationThreads;
  close(): Promise<void>;
} {
  let vad: SileroVad | null = null;
  let closed = false;
  const threads = new DiarizationThreads();
  const detector = () => (vad ??= options.vad?.withSettings(DIARIZATION_VAD) ?? createSileroVad({ ...DIARIZATION_VAD, modelPath: sileroModelPath() }));
  const refine: SpeechRefiner = (pcm, speech, signal) => diarizationSpeech(pcm, detector(), speech, signal);
  return {
    diarizer: new ThreadedDiarizer(refine, threads),
    checkpointed: (checkpoints, onSpeechKept) =>
      checkpointedDiarizer(new ThreadedDiarizer(checkpointedRefiner(refine, checkpoints, onSpeechKept), threads), checkpoints),
    warm: () => {
      if (closed) return;
      threads.warm();
      // A model that fails to load says so when a request needs it.
      detector().prepare().catch(() => {});
    },
    threads,
    close: async () => {
      closed = true;
      await threads.close();
      await vad?.close();
      vad = null;
    },
  };
}

/**
 * Progress once diarization's speech spans are found (and checkpointed): past the 0.9 at which the pipeline
 * starts diarizing, so a job killed twice during diarization made progress between the kills.
 */
const DIARIZATION_SPEECH_PROGRESS = 0.93;

/**
 * The on-device pipeline: Silero VAD, the chosen recognizer (PocketSphinx today) and spectral
 * diarization. Engines start on first use and stay warm (their decoder processes are long-lived).
 */
export function createLocalTranscription(deps: {
  tools: MediaTools;
  env: NodeJS.ProcessEnv;
  matcher: VoiceMatcher;
  log?: (line: string) => void;
  /** Where decoders keep their working files (the data folder's scratch; default the OS temp folder). */
  scratchDir?: string;
  /** Per-chunk speaker transforms (default on; off leaves PocketSphinx's decoders as they were). */
  adaptation?: boolean;
  /** PocketSphinx's function-word pronunciation variants (default on). */
  pronunciationVariants?: boolean;
  /** PocketSphinx hears chunks whose speech is under 25 dB SNR denoised with it (none: every chunk as it is). */
  denoiser?: Denoiser;
  /** PocketSphinx hears chunks that hold late reverberation dereverberated with it, before the noise check. */
  dereverberator?: Dereverberator;
  /** Adaptation within each recording (PocketSphinx only); absent or a null estimator: none. */
  withinRecording?: {
    estimator(workDir: string): BatchEstimator | null;
    /** The recognizer's dictionary words (Baum-Welch aligns only those). */
    words(): ReadonlySet<string>;
  };
}): TranscriptionEngine {
  const recognizers = new Map<string, Recognizer>();
  let denoiserFailed = false;
  // One Silero model for the service: recognition's detector, the diarizer's and each request's own
  // settings are streams on it (the model loads on first use).
  const vad = createSileroVad({ modelPath: sileroModelPath(deps.env) });
  const {
    diarizer: sharedDiarizer,
    checkpointed: checkpointedDiarization,
    warm: warmDiarizer,
    close: closeDiarizer,
  } = createServiceDiarizer({ vad });

  const recognizerFor = (engine: ResolvedEngine): Recognizer => {
    const id = engine.model.id;
    let recognizer = recognizers.get(id);
    if (!recognizer) {
      if (id === POCKETSPHINX_ID) {
        recognizer = createPocketSphinxRecognizer({
          env: deps.env,
          tempDir: deps.scratchDir,
          adaptation: deps.adaptation,
          pronunciationVariants: deps.pronunciationVariants,
          // Decoders kept through an analysis held ~230 MB beside the editor's other tools.
          idleSeconds: decoderIdleSeconds(deps.env),
        });
      } else if (engine.descriptor.createRecognizer) recognizer = engine.descriptor.createRecognizer();
      else throw new JobFailure(`No engine implementation for model "${id}".`);
      recognizers.set(id, recognizer);
    }
    return recognizer;
  };

  /** A voice profile of a short reference clip sent as a data URL. */
  const referenceProfile = async (
    dataUrl: string,
    index: number,
    signal?: AbortSignal,
  ): Promise<number[] | null> => {
    const match = /^data:audio\/[a-z0-9.+-]+;base64,(.*)$/is.exec(dataUrl);
    const file = path.join(os.tmpdir(), `takeline-ref-${crypto.randomUUID()}`);
    try {
      fs.writeFileSync(file, Buffer.from(match?.[1] ?? '', 'base64'));
      const pcm = await decodeAudioToArray(file, deps.tools, { signal });
      const result = diarizeSpectral(
        pcm,
        [{ start: 0, end: pcm.length / SAMPLE_RATE }],
        { maxSpeakers: 1 },
        DEFAULT_DIARIZER_SETTINGS,
      );
      return Object.values(result.profiles)[0] ?? null;
    } catch {
      throw new InvalidInputError([
        issue(
          ['body', 'known_speaker_references', index],
          'The reference is not decodable audio',
          'value_error',
          null,
        ),
      ]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  };

  return {
    async transcribe(request) {
      if (!request.engine.descriptor.languages.includes(request.language)) {
        throw new JobFailure(`The model "${request.engine.model.id}" does not transcribe "${request.language}".`);
      }
      // A team's model is fetched onto this node first (once; later calls find the verified copy).
      await request.engine.descriptor.provision?.(request.signal);
      // The request's language and temperature reach every chunk's recognition.
      const base = withRequestOptions(recognizerFor(request.engine), { language: request.language, temperature: request.temperature });
      // Both adaptation wrappers match a chunk's voice profile: it is measured once.
      const chunkVoices = chunkProfiles();
      // Transforms are PocketSphinx's: another engine decodes as it would without them.
      const adapting =
        request.adaptedSpeakers?.length && deps.adaptation !== false && request.engine.model.id === POCKETSPHINX_ID
          ? adaptingRecognizer(base, request.adaptedSpeakers, deps.matcher, chunkVoices)
          : null;
      // Inside this recording: a voice's later chunks with a transform fitted to its earlier ones. A project
      // speaker's transform (adapting, inside) replaces it where a chunk matches one.
      const estimator =
        deps.adaptation !== false && request.engine.model.id === POCKETSPHINX_ID && deps.withinRecording
          ? deps.withinRecording.estimator(path.join(deps.scratchDir ?? os.tmpdir(), `voices-${crypto.randomUUID()}`))
          : null;
      const within = estimator
        ? requestAdaptingRecognizer(adapting?.recognizer ?? base, estimator, deps.matcher, deps.withinRecording!.words(), {
            maxBatchSeconds: WITHIN_RECORDING_MAX_BATCH_SECONDS,
            lag: os.availableParallelism(),
            log: deps.log,
          }, chunkVoices)
        : null;
      const configured = retryingRecognizer(
        within?.recognizer ?? adapting?.recognizer ?? base,
        (error, offset) => deps.log?.(`recognition of the chunk at ${offset.toFixed(1)} s failed (${(error as Error)?.message ?? String(error)}); trying it once more`),
      );
      const recognizer = request.checkpoints ? checkpointedRecognizer(configured, request.checkpoints) : configured;
      // The decoders, the diarizer's thread and the models get ready while the file is probed and decoded
      // (no-ops once warm: they stay up between requests).
      recognizerFor(request.engine).prepare?.();
      warmDiarizer();
      // Per-request VAD settings get their own detector on the same model.
      const requestVad = request.vad ? vad.withSettings(request.vad) : null;
      // Diarization starts beside the last recognitions: its first step shows only once the pipeline is diarizing.
      let speechKept = false;
      let stage = '';
      const onProgress = (fraction: number, at: string) => {
        stage = at;
        request.onProgress?.(at === 'diarize' && speechKept ? Math.max(fraction, DIARIZATION_SPEECH_PROGRESS) : fraction, at);
      };
      const diarizer = request.diarizationCheckpoints
        ? checkpointedDiarization(request.diarizationCheckpoints, () => {
            speechKept = true;
            if (stage === 'diarize') onProgress(DIARIZATION_SPEECH_PROGRESS, stage);
          })
        : sharedDiarizer;
      let profiles: Record<string, number[]> | undefined;
      let denoisedChunks = 0;
      const denoiser = deps.denoiser;
      const counting = denoiser && {
        id: denoiser.id,
        denoise: async (pcm: Float32Array) => {
          try {
            const out = await denoiser.denoise(pcm);
            denoisedChunks++;
            return out;
          } catch (error) {
            // A denoiser that cannot run (a damaged install) costs accuracy on noisy audio, not the transcript.
            if (!denoiserFailed) deps.log?.(`the denoiser failed (${(error as Error)?.message ?? String(error)}); noisy chunks are decoded as they are`);
            denoiserFailed = true;
            return pcm;
          }
        },
      };
      let dereverberatedChunks = 0;
      const dereverberator = deps.dereverberator;
      const countingDereverberator = dereverberator && {
        id: dereverberator.id,
        dereverberate: async (pcm: Float32Array) => {
          const out = await dereverberator.dereverberate(pcm);
          if (out.applied) dereverberatedChunks++;
          return out;
        },
      };
      const pocketSphinx = request.engine.model.id === POCKETSPHINX_ID;
      const transcript = await transcribeFile(
        request.file,
        {
          tools: deps.tools,
          vad: requestVad ?? vad,
          recognizer,
          diarizer,
          // PocketSphinx only: Whisper was trained on 680,000 hours of web audio, noise and rooms included, and was
          // never measured here on denoised or dereverberated input (an enhancer's artefacts would be new to it).
          denoiser: pocketSphinx ? counting : undefined,
          dereverberator: pocketSphinx ? countingDereverberator : undefined,
        },
        {
          language: request.language,
          prompt: request.prompt,
          vocabulary: request.vocabulary,
          minSpeakers: request.minSpeakers,
          maxSpeakers: request.maxSpeakers,
          signal: request.signal,
          knownSeconds: request.duration,
          onProgress,
          onSegment: (segment) => request.onSegment?.(segment),
          // A plan cut with other VAD settings would not match this run's.
          plan: requestVad ? undefined : request.checkpoints?.plan,
          onDiarization: (result) => {
            profiles = result.profiles;
            request.onTurns?.(result.turns);
          },
        },
      )
        .catch((error: unknown) => {
          // Whisper's model or process failures are the user's to fix (a damaged download): say what happened.
          throw error instanceof WhisperHostError ? new JobFailure(error.message) : error;
        })
        // Stops a running estimate, then removes the recording's statistics.
        .finally(() => within?.recognizer.close());
      if (dereverberatedChunks > 0) deps.log?.(`dereverberated ${dereverberatedChunks} chunk(s) that held late reverberation before recognition`);
      if (denoisedChunks > 0) deps.log?.(`denoised ${denoisedChunks} chunk(s) whose speech was under ${NOISY_BELOW_SNR_DB} dB SNR before recognition`);
      const use = adapting?.use();
      if (use) deps.log?.(`adaptation: ${use.speakers.reduce((a, s) => a + s.chunks, 0)} of ${use.chunks} chunks decoded adapted; chunk profiles took ${use.profileMs} ms`);
      const inside = within?.use();
      const withinRecording = inside && inside.adaptedChunks > 0 ? { voices: inside.voices, chunks: inside.adaptedChunks, transforms: inside.estimates } : null;
      if (withinRecording) deps.log?.(`adaptation within the recording: ${withinRecording.chunks} of ${inside!.chunks} chunks decoded adapted (${withinRecording.voices} voices, ${withinRecording.transforms} estimates)`);
      return {
        ...transcript,
        engine: request.engine.model.id,
        profiles,
        ...(use || withinRecording
          ? {
              adaptation: {
                chunks: use?.chunks ?? inside!.chunks,
                speakers: use?.speakers ?? [],
                ...(withinRecording ? { within_recording: withinRecording } : {}),
              },
            }
          : {}),
      };
    },

    async applyKnownSpeakers(transcript, names, references, signal) {
      if (names.length === 0) return transcript;
      if (!transcript.profiles || transcript.speakers.length === 0) return transcript;
      const known = await Promise.all(references.map((ref, i) => referenceProfile(ref, i, signal)));
      // Greedy one-to-one assignment, most similar pairs first.
      const pairs: Array<{ label: string; name: string; similarity: number }> = [];
      for (const label of transcript.speakers) {
        known.forEach((profile, i) => {
          const own = transcript.profiles![label];
          if (profile && own)
            pairs.push({ label, name: names[i]!, similarity: deps.matcher.similarity(own, profile) });
        });
      }
      pairs.sort((a, b) => b.similarity - a.similarity);
      const rename = new Map<string, string>();
      const used = new Set<string>();
      for (const pair of pairs) {
        if (rename.has(pair.label) || used.has(pair.name)) continue;
        rename.set(pair.label, pair.name);
        used.add(pair.name);
      }
      const to = (label: string) => rename.get(label) ?? label;
      return {
        ...transcript,
        speakers: transcript.speakers.map(to),
        segments: transcript.segments.map((s) => ({
          ...s,
          speaker: to(s.speaker),
          words: s.words.map((w) => ({ ...w, speaker: to(w.speaker) })),
        })),
        profiles: Object.fromEntries(Object.entries(transcript.profiles).map(([label, p]) => [to(label), p])),
      };
    },

    async close() {
      await Promise.allSettled([...recognizers.values()].map((r) => r.close()));
      recognizers.clear();
      // The diarizer's thread first, then the model its detector shares.
      await closeDiarizer();
      await vad.close();
    },
  };
}
