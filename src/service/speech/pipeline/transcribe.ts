import { availableParallelism } from 'node:os';
import { decodeAudio, isNoAudioStreamError, probeAudioDuration } from '../../media/decode';
import type { MediaTools } from '../../media/tools';
import {
  SAMPLE_RATE,
  type DiarizationResult,
  type Diarizer,
  type RecognizedSegment,
  type Recognizer,
  type Span,
  type SpeakerTurn,
  type Transcript,
  type VoiceActivityDetector,
} from '../types';
import { ChunkMerger, splitAtQuietPoints, type ChunkOptions } from './chunks';
import { RetainedPcm, WindowedPcm, type PcmStore } from './pcmStore';
import { assignSpeakers } from './speakers';
import { levelledBlocks } from './levelled-blocks';
import { openVadStream } from './vadStream';
import { SentenceWriter } from '../text/readable';
import { writtenForms } from '../text/casing';
import { pitchTrack, wordEndFalls, type PitchTrack } from '../text/pitch-cues';
import type { VadSnapshot, VoiceActivityStream } from '../vad/silero';
import type { Denoiser, Dereverberator } from '../enhancement/types';
import { denoisedIfNoisy, speechWithin } from '../enhancement/noisy-speech';

/**
 * decode (ffmpeg, streamed) → levelled to one peak (levelled-blocks.ts) → VAD (streamed) → chunks → dereverberated
 * where they hold late reverberation, then denoised where their speech is under 25 dB SNR (speech/enhancement)
 * → recognizer (in parallel, results in order) → written text (sentence case and punctuation from pauses and pitch, speech/text; skipped for engines that
 * write text themselves) → diarization → speakers on words and segments → Transcript.
 *
 * Memory: recognition only ever needs the chunks in flight, but the Diarizer contract takes the whole
 * signal, so with a diarizer the PCM of the recording is kept in one pre-sized buffer (230 MB per hour of
 * 16 kHz float32). With a diarizer on another thread that buffer is a SharedArrayBuffer: the input is read
 * ahead of recognition (queued chunks are views of it, so reading ahead costs no memory), the diarizer
 * starts as soon as the input ends and shares the buffer with the chunks still queued, and each chunk is
 * copied only while it is recognised. Without a diarizer only the audio not yet handed to the recognizer is
 * held, and the input waits for the recognizer. The way to bound memory with diarization too is a streaming
 * feature extractor (the spectral diarizer only needs ~20 MFCCs per 10 ms, ≈ 29 MB per hour as float32):
 * that needs a Diarizer variant that accepts features incrementally, a change to the shared contract.
 * Measured (bench/pipeline): on 69 min with PocketSphinx, Node's peak RSS 659 MB and the whole process tree
 * 905 MB; on the 13.8-min file, 346 MB and 576 MB.
 */

export interface TranscribeDeps {
  tools: MediaTools;
  vad: VoiceActivityDetector;
  /** A single engine or a pool; `concurrency` calls are made at once, so a pool keeps every worker busy. */
  recognizer: Recognizer;
  /** Without one, every word is S1 and memory stays bounded by the chunks in flight. */
  diarizer?: Diarizer;
  /** Recognitions in flight at once. Default: the number of cores. */
  concurrency?: number;
  /**
   * Chunks whose speech is noisy (speech/enhancement/noisy-speech.ts) are denoised with it before recognition; the
   * diarizer and everything stored keep the recording as it is. Without one every chunk is recognized as it is.
   */
  denoiser?: Denoiser;
  /** Chunks are dereverberated with it before the noise check and recognition (it decides which hold reverberation). */
  dereverberator?: Dereverberator;
}

export type TranscribeStage = 'recognize' | 'diarize' | 'done';

/**
 * Where voice activity detection and chunking stood in a run of a durable transcription: a resumed run
 * hands the same chunks on again (their recognitions come from the chunk checkpoints) and runs the VAD
 * only on the audio after `vad.samples`, from the VAD's saved state, so it cuts the same chunks after it.
 */
export interface ChunkPlan {
  vad: VadSnapshot;
  /** The chunk still open to merging. */
  pending: Span | null;
  /** Every speech span found and every chunk handed on before the VAD's position, in order. */
  speech: Span[];
  chunks: Span[];
}

/** Audio between two saves of the chunk plan, at least (and a tenth of the audio so far, once that is more). */
const PLAN_INTERVAL_SECONDS = 20;

export interface ChunkPlanCheckpoints {
  load(): ChunkPlan | null | Promise<ChunkPlan | null>;
  /** Awaited: a promise it returns settles once the plan is kept. */
  save(plan: ChunkPlan): unknown;
}

export interface TranscribeOptions {
  /** Recorded on the transcript; the engine decides what it can recognize. Default 'en'. */
  language?: string;
  prompt?: string;
  /** Words and names to expect (the project's vocabulary); handed to the recognizer beside the prompt. */
  vocabulary?: readonly string[];
  minSpeakers?: number;
  maxSpeakers?: number;
  signal?: AbortSignal;
  /** Level the recording to one peak before anything hears it (levelled-blocks.ts). Default true; false for benchmarks. */
  levelling?: boolean;
  /** Overall progress 0..1; recognition runs to 0.9 (0.97 without a diarizer), then diarization. */
  onProgress?: (fraction: number, stage: TranscribeStage) => void;
  /**
   * Each recognized segment as soon as it and everything before it are done, in time order; `index`
   * counts from 0. Speakers are not known yet (diarization needs the whole file), so these are
   * RecognizedSegments; the final Transcript may split them where the speaker changes.
   */
  onSegment?: (segment: RecognizedSegment, index: number) => void;
  /** The diarizer's result with its labels renamed to the transcript's (S1 = first to speak). */
  onDiarization?: (result: DiarizationResult) => void;
  chunks?: ChunkOptions;
  /** Kept and updated as chunks are handed on (a durable job); needs a VAD that can resume its stream. */
  plan?: ChunkPlanCheckpoints;
}

export interface FileOptions extends TranscribeOptions {
  /** The file's duration when the caller probed it already: it is not probed again (an ffprobe costs ~0.3 CPU-s). */
  knownSeconds?: number;
}

export async function transcribeFile(
  path: string,
  deps: TranscribeDeps,
  options: FileOptions = {},
): Promise<Transcript> {
  const controller = new AbortController();
  const forward = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) forward();
  options.signal?.addEventListener('abort', forward, { once: true });
  // The container's duration (a hint for the buffer's size and progress) is read while ffmpeg starts
  // decoding, not before it: ffprobe's start would otherwise add to every request's wall time.
  const expected = options.knownSeconds ?? probeAudioDuration(path, deps.tools, options.signal);
  try {
    const blocks = decodeAudio(path, deps.tools, { signal: controller.signal, blockSamples: SAMPLE_RATE });
    return await transcribeBlocks(blocks, deps, { ...options, expectedSeconds: expected }, controller);
  } catch (error) {
    if (isNoAudioStreamError(error)) return emptyTranscript(options, deps.recognizer, 0);
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', forward);
    // (Never rejects.) No ffprobe outlives the request.
    await expected;
  }
}

function emptyTranscript(options: TranscribeOptions, recognizer: Recognizer, duration: number): Transcript {
  return {
    language: options.language ?? 'en',
    duration,
    text: '',
    segments: [],
    speakers: [],
    engine: recognizer.id,
  };
}

/**
 * The pipeline over any source of 16 kHz mono blocks. `controller` is aborted when something fails, so
 * the source (ffmpeg) and in-flight recognitions stop early.
 */
export async function transcribeBlocks(
  blocks: AsyncIterable<Float32Array>,
  deps: TranscribeDeps,
  /** `expectedSeconds`: the container's duration, if known (it may arrive while decoding has begun). */
  options: TranscribeOptions & { expectedSeconds?: number | null | Promise<number | null> } = {},
  controller = new AbortController(),
): Promise<Transcript> {
  const { recognizer, diarizer } = deps;
  const signal = controller.signal;
  const concurrency = Math.max(1, deps.concurrency ?? availableParallelism());
  const hint = options.expectedSeconds ?? null;
  let expected = typeof hint === 'number' ? hint : null;
  const recognizeShare = diarizer ? 0.9 : 0.97;
  // A diarizer on another thread reads the recording from a shared buffer while the chunks decode, so the
  // input runs ahead: the diarizer then starts long before recognition ends instead of at its tail.
  const readsAhead = diarizer?.concurrent === true;
  const store: PcmStore = diarizer ? new RetainedPcm(expected, { shared: readsAhead }) : new WindowedPcm();
  if (hint instanceof Promise) {
    void hint.then((seconds) => {
      expected = seconds;
      if (store instanceof RetainedPcm) store.reserve(seconds);
    });
  }
  const merger = new ChunkMerger(options.chunks);
  const speech: Span[] = [];
  // Every chunk handed on, for the plan; those of a kept plan are handed on again as their audio arrives.
  const handed: Span[] = [];
  const keptPlan = (await options.plan?.load()) ?? null;
  // A kept plan is checked against the recording's length, so a resumed run waits for the probe.
  if (keptPlan && hint instanceof Promise) expected = await hint;
  const { vad, resumed } = openPlannedVad(deps.vad, keptPlan, expected);
  const replayUntil = resumed?.vad.samples ?? 0;
  const planned: Span[] = resumed ? [...resumed.chunks] : [];
  if (resumed) {
    speech.push(...resumed.speech);
    merger.restore(resumed.pending);
  }
  const queue = new OrderedRecognition(recognizer, concurrency, {
    prompt: options.prompt,
    vocabulary: options.vocabulary,
    writer: recognizer.writesText ? null : new SentenceWriter(writtenForms([options.prompt ?? ''], options.vocabulary)),
    signal,
    denoiser: deps.denoiser,
    dereverberator: deps.dereverberator,
    onSegment: options.onSegment,
    onChunkDone: () => reportRecognized(),
    onFailure: (error) => controller.abort(error),
  });

  let lastReported = -1;
  const report = (fraction: number, stage: TranscribeStage) => {
    if (!options.onProgress || (fraction - lastReported < 0.005 && stage === 'recognize')) return;
    lastReported = fraction;
    options.onProgress(Math.min(1, fraction), stage);
  };
  report(0, 'recognize');

  let pendingChunk: Span | null = resumed?.pending ?? null;
  const submit = (chunks: Span[]) => {
    for (const chunk of chunks) {
      handed.push(chunk);
      const pcm = store.read(toSample(chunk.start), toSample(chunk.end));
      for (const piece of splitAtQuietPoints(pcm, chunk, options.chunks)) {
        const samples = store.read(toSample(piece.start), toSample(piece.end));
        queue.submit(piece, samples, deps.denoiser ? speechWithin(speech, piece) : []);
      }
    }
  };
  // Audio before the VAD's open speech, the merger's open chunk and the next kept chunk can never be read again.
  const release = () => store.release(toSample(Math.min(vad.settledUntil, pendingChunk?.start ?? Infinity, planned[0]?.start ?? Infinity)));
  let plannedAt = replayUntil / SAMPLE_RATE;
  const onSpans = async (spans: Span[]) => {
    const before = handed.length;
    for (const span of spans) {
      speech.push(span);
      submit(merger.push(span));
      pendingChunk = merger.pending;
    }
    release();
    // Each save writes the whole plan, so saves thin out as it grows (O(n) bytes over a recording, not O(n²));
    // a resumed run re-runs the VAD over at most the interval, a fraction of a chunk's decoding.
    if (handed.length > before && options.plan && vad.snapshot && vad.position - plannedAt >= Math.max(PLAN_INTERVAL_SECONDS, 0.1 * vad.position)) {
      plannedAt = vad.position;
      await options.plan.save({ vad: vad.snapshot(), pending: merger.pending, speech: [...speech], chunks: [...handed] });
    }
  };
  const frontier = () =>
    Math.min(queue.frontier ?? Infinity, planned[0]?.start ?? Infinity, pendingChunk?.start ?? Infinity, vad.settledUntil);
  function reportRecognized() {
    if (expected) report((recognizeShare * Math.min(frontier(), expected)) / expected, 'recognize');
  }

  try {
    let received = 0;
    // Everything downstream hears the recording at one peak, whatever level it was recorded at.
    for await (const block of options.levelling === false ? blocks : levelledBlocks(blocks)) {
      if (signal.aborted) break;
      store.append(block);
      // Audio the kept plan covers: its chunks are handed on once their audio is in; the VAD already saw it.
      const covered = Math.min(block.length, Math.max(0, replayUntil - received));
      received += block.length;
      let ready = 0;
      while (ready < planned.length && toSample(planned[ready]!.end) <= store.length) ready++;
      if (ready > 0) submit(planned.splice(0, ready));
      if (covered < block.length) await onSpans(await vad.push(covered > 0 ? block.subarray(covered) : block));
      else release();
      reportRecognized();
      // Backpressure: do not run far ahead of the recognizer (bounds memory without a diarizer). Reading ahead
      // into the shared buffer holds nothing more: the diarizer keeps the whole recording anyway.
      if (!readsAhead) await queue.waitForRoom(concurrency + 4);
    }
    if (signal.aborted) throw abortReason(signal);
    if (planned.length > 0) submit(planned.splice(0));
    await onSpans(await vad.finish());
    submit(merger.finish());
    queue.close();
    pendingChunk = null;
  } catch (error) {
    controller.abort(error);
    await queue.settle();
    throw queue.failure ?? error;
  }

  const duration = store.length / SAMPLE_RATE;
  if (speech.length === 0) {
    await queue.settle();
    report(1, 'done');
    return emptyTranscript(options, recognizer, round3(duration));
  }

  // An in-process diarizer starts only once recognition is over: it may compute synchronously, and blocking
  // the event loop while recognitions are in flight starves their I/O (and trips their watchdogs). One on
  // another thread starts now, while the input read ahead leaves chunks queued, and works beside them.
  const diarize = () =>
    diarizer!.diarize((store as RetainedPcm).all(), speech, {
      minSpeakers: options.minSpeakers,
      maxSpeakers: options.maxSpeakers,
      // Aborted when recognition fails or the caller goes away: a threaded diarizer then stops at once.
      signal,
    });
  const early = diarizer?.concurrent ? diarize() : null;
  // Its failure is reported after recognition's, never as an unhandled rejection meanwhile.
  early?.catch(() => {});

  let recognized: RecognizedSegment[];
  try {
    recognized = await queue.drain();
  } catch (error) {
    await queue.settle();
    throw queue.failure ?? error;
  }
  if (signal.aborted) throw abortReason(signal);

  let diarization: DiarizationResult | null = null;
  if (diarizer) {
    report(recognizeShare, 'diarize');
    diarization = await (early ?? diarize());
    if (signal.aborted) throw abortReason(signal);
  }

  const turns: SpeakerTurn[] = diarization?.turns ?? [];
  const kept = recognized.filter((s) => s.text.trim() !== '');
  const { segments, speakers, relabel } = assignSpeakers(kept, turns);
  if (diarization && options.onDiarization) options.onDiarization(renameSpeakers(diarization, relabel));
  report(1, 'done');
  return {
    language: options.language ?? 'en',
    duration: round3(duration),
    text: segments.map((s) => s.text).join(' '),
    segments,
    speakers,
    engine: recognizer.id,
  };
}

/**
 * The VAD stream, going on from the kept plan when there is one it can use (the VAD can resume its state, and
 * the plan lies inside the recording); otherwise a fresh stream and no plan: the run cuts its chunks anew.
 */
function openPlannedVad(
  detector: VoiceActivityDetector,
  kept: ChunkPlan | null,
  expectedSeconds: number | null,
): { vad: VoiceActivityStream; resumed: ChunkPlan | null } {
  if (kept && (expectedSeconds === null || kept.vad.samples <= toSample(expectedSeconds) + SAMPLE_RATE)) {
    try {
      return { vad: openVadStream(detector, { resume: kept.vad }), resumed: kept };
    } catch {
      // Another VAD engine, or a snapshot from another version: start over.
    }
  }
  return { vad: openVadStream(detector), resumed: null };
}

/** Carries the transcript's labels over to the diarizer's turns and profiles; unheard voices follow. */
function renameSpeakers(result: DiarizationResult, relabel: Map<string, string>): DiarizationResult {
  const names = new Map(relabel);
  for (const t of result.turns) if (!names.has(t.speaker)) names.set(t.speaker, `S${names.size + 1}`);
  for (const s of Object.keys(result.profiles)) if (!names.has(s)) names.set(s, `S${names.size + 1}`);
  return {
    turns: result.turns.map((t) => ({ ...t, speaker: names.get(t.speaker)! })),
    profiles: Object.fromEntries(Object.entries(result.profiles).map(([k, v]) => [names.get(k)!, v])),
  };
}

interface Recognized {
  segments: RecognizedSegment[];
  /** Pitch cue per word (pitch-cues.ts), empty when no writer needs it. */
  falls: (number | null)[];
}

/**
 * Runs recognitions with at most `concurrency` at once and hands their segments on strictly in
 * submission order, so a listener can stream them as deltas.
 */
class OrderedRecognition {
  private running = 0;
  private readonly slots: (() => void)[] = [];
  private readonly roomWaiters: (() => void)[] = [];
  private readonly inFlight: { span: Span; done: boolean; promise: Promise<Recognized> }[] = [];
  /** Start of every piece submitted, in order, and whether more may come (the writer needs the gap after a piece). */
  private readonly starts: number[] = [];
  private closed = false;
  private readonly startWaiters: (() => void)[] = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly segments: RecognizedSegment[] = [];
  private unfinished = 0;
  failure: unknown = null;

  constructor(
    private readonly recognizer: Recognizer,
    private readonly concurrency: number,
    private readonly opts: {
      prompt?: string;
      vocabulary?: readonly string[];
      /** Writes the recognizer's words as text; null for engines that write text themselves. */
      writer?: SentenceWriter | null;
      signal: AbortSignal;
      denoiser?: Denoiser;
      dereverberator?: Dereverberator;
      onSegment?: (segment: RecognizedSegment, index: number) => void;
      /** After each chunk's segments are delivered, in order (progress keeps moving once decoding is done). */
      onChunkDone?: () => void;
      onFailure: (error: unknown) => void;
    },
  ) {}

  /** Start of the earliest chunk whose segments have not been handed on yet. */
  get frontier(): number | null {
    return this.inFlight[0]?.span.start ?? null;
  }

  /** `speech`: the VAD's speech within the piece, in the piece's clock (for the denoiser's noise check; else empty). */
  submit(span: Span, pcm: Float32Array, speech: Span[]): void {
    this.unfinished++;
    const index = this.starts.length;
    this.starts.push(span.start);
    for (const wake of this.startWaiters.splice(0)) wake();
    const entry = { span, done: false, promise: this.run(pcm, span, speech) };
    entry.promise.then(
      () => this.finished(entry),
      (error: unknown) => {
        if (this.failure === null) this.failure = error;
        this.opts.onFailure(error);
        this.finished(entry);
      },
    );
    this.inFlight.push(entry);
    this.chain = this.chain.then(async () => {
      const recognized = await entry.promise;
      const writer = this.opts.writer;
      const result = writer ? writer.write(recognized.segments, recognized.falls, await this.startAfter(index)) : recognized.segments;
      this.inFlight.shift();
      for (const segment of result) {
        this.segments.push(segment);
        this.opts.onSegment?.(segment, this.segments.length - 1);
      }
      this.opts.onChunkDone?.();
    });
    this.chain.catch(() => {});
  }

  /** No more pieces will be submitted. */
  close(): void {
    this.closed = true;
    for (const wake of this.startWaiters.splice(0)) wake();
  }

  /** Start of the piece after piece `index`, once it is submitted; null when none follows. */
  private async startAfter(index: number): Promise<number | null> {
    while (this.starts.length <= index + 1 && !this.closed) {
      await new Promise<void>((resolve) => this.startWaiters.push(resolve));
    }
    return this.starts[index + 1] ?? null;
  }

  private async run(original: Float32Array, span: Span, speech: Span[]): Promise<Recognized> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.slots.push(resolve));
    this.running++;
    try {
      if (this.opts.signal.aborted) throw abortReason(this.opts.signal);
      // A view of the shared recording becomes a chunk of its own here: an engine may hand its audio to a
      // process, a thread or native code, and only the chunks in flight are copied.
      let pcm = original.buffer instanceof SharedArrayBuffer ? original.slice() : original;
      // Reverberation fills the pauses the noise check reads, so the room goes first.
      if (this.opts.dereverberator) pcm = (await this.opts.dereverberator.dereverberate(pcm)).pcm;
      if (this.opts.signal.aborted) throw abortReason(this.opts.signal);
      if (this.opts.denoiser) pcm = (await denoisedIfNoisy(this.opts.denoiser, pcm, speech)).pcm;
      if (this.opts.signal.aborted) throw abortReason(this.opts.signal);
      const pending = this.recognizer.recognize(pcm, {
        offset: span.start,
        prompt: this.opts.prompt,
        vocabulary: this.opts.vocabulary,
        signal: this.opts.signal,
      });
      // Pitch is measured while the decoder works (it runs in another process).
      const track: PitchTrack | null = this.opts.writer ? pitchTrack(pcm, span.start) : null;
      const segments = await pending;
      const falls = track ? wordEndFalls(track, segments.flatMap((s) => s.words)) : [];
      return { segments, falls };
    } finally {
      this.running--;
      this.slots.shift()?.();
    }
  }

  private finished(entry: { done: boolean }): void {
    entry.done = true;
    this.unfinished--;
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  /** Resolves once at most `limit` recognitions are unfinished (running or waiting for a slot). */
  async waitForRoom(limit: number): Promise<void> {
    while (this.unfinished > limit) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Every segment, in order, once all submitted chunks are recognized; rejects on the first failure. */
  async drain(): Promise<RecognizedSegment[]> {
    await this.chain;
    return this.segments;
  }

  /** Waits for everything started to stop, success or not (never rejects). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.map((e) => e.promise));
  }
}

function toSample(seconds: number): number {
  return Math.round(seconds * SAMPLE_RATE);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function abortReason(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error('The transcription was aborted.');
  error.name = 'AbortError';
  return error;
}
