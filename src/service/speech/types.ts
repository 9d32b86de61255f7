/**
 * The shapes that flow between the speech engines (VAD, recognition, alignment, diarization) and the
 * pipeline that stitches them together. Times are seconds from the start of the recording; audio is
 * 16 kHz mono float32 in [-1, 1] unless a name says otherwise.
 */

export const SAMPLE_RATE = 16_000;

/** A stretch of the recording in seconds. */
export interface Span {
  start: number;
  end: number;
}

export interface RecognizedWord extends Span {
  word: string;
  /** Posterior probability of the word in [0, 1], as the decoder reports it. */
  confidence: number;
}

export interface RecognizedSegment extends Span {
  text: string;
  words: RecognizedWord[];
  /** Mean log probability per word, as decoders report it (0 is certain). */
  avgLogprob: number;
}

export interface RecognizeOptions {
  /** Seconds to add to every time, so chunk-local results land on the recording's clock. */
  offset?: number;
  /** Vocabulary and context hint; engines that cannot use it ignore it. */
  prompt?: string;
  /** Words and names to expect (a project's vocabulary), beside the prompt. */
  vocabulary?: readonly string[];
  /** ISO 639-1 code of the spoken language; engines with one language ignore it. */
  language?: string;
  /** OpenAI's sampling temperature (0–1; 0 = deterministic with fallback); engines that do not sample ignore it. */
  temperature?: number;
  /**
   * An MLLR transform file fitted to this chunk's speaker (project speaker adaptation); engines without
   * acoustic adaptation ignore it.
   */
  mllr?: string;
  /**
   * A means file adapted to this chunk's speaker (MAP from corrected speech, the speaker's transform already in
   * it): decoded with these means instead of `mllr` (which stays the fallback if they cannot be loaded); engines
   * without acoustic adaptation ignore it.
   */
  means?: string;
  signal?: AbortSignal;
}

/** A speech-to-text engine. Implementations load their model lazily, on first use. */
export interface Recognizer {
  readonly id: string;
  /**
   * True when the engine writes cased, punctuated text itself (Whisper). Otherwise the pipeline writes
   * sentences from pauses and pitch (speech/text).
   */
  readonly writesText?: boolean;
  recognize(pcm: Float32Array, options?: RecognizeOptions): Promise<RecognizedSegment[]>;
  /**
   * Starts the engine's processes (or loads its model) now, in the background, so a request's first chunk
   * does not wait for them; a failure shows at the first `recognize`. Optional.
   */
  prepare?(): void;
  close(): Promise<void>;
}

/** Word timings for known text over a stretch of audio (corrections, dubbing). */
export interface Aligner {
  align(
    pcm: Float32Array,
    text: string,
    options?: { offset?: number; signal?: AbortSignal },
  ): Promise<RecognizedWord[]>;
}

/** Finds where people speak. */
export interface VoiceActivityDetector {
  detect(pcm: Float32Array, options?: { offset?: number }): Promise<Span[]>;
}

export interface SpeakerTurn extends Span {
  /** `S1`, `S2`, … in order of first appearance. */
  speaker: string;
}

export interface DiarizeOptions {
  minSpeakers?: number;
  maxSpeakers?: number;
  /** Stops the work early (the client left, or recognition failed); the promise then rejects. */
  signal?: AbortSignal;
}

export interface DiarizationResult {
  turns: SpeakerTurn[];
  /** One voice profile per speaker label, comparable across recordings with `profileSimilarity`. */
  profiles: Record<string, number[]>;
}

export interface Diarizer {
  /**
   * True when diarize() computes off the event loop (a worker thread): the pipeline then reads its input
   * ahead of recognition and starts the diarizer as soon as the input ends, alongside the recognitions
   * still queued. The PCM it gets is then a view of a SharedArrayBuffer those recognitions still read: it
   * must not be written to (a caller may also hand it an ordinary buffer to transfer).
   */
  readonly concurrent?: boolean;
  diarize(pcm: Float32Array, speech: Span[], options?: DiarizeOptions): Promise<DiarizationResult>;
}

/** A finished transcript as stored per session and served by the API and exports. */
export interface TranscriptWord extends RecognizedWord {
  speaker: string;
}

export interface TranscriptSegment extends Span {
  id: number;
  speaker: string;
  text: string;
  words: TranscriptWord[];
  avgLogprob: number;
  /** 1 − the voice activity detector's mean speech probability over the segment, when known. */
  noSpeechProb?: number;
  /**
   * The editor corrected this line's words, or aligned a script to it: its words are what was
   * said, so speaker adaptation takes them as supervision instead of the recognizer's guess.
   */
  corrected?: true;
  /**
   * The editor saved this whole line (not a word of it): a person read every word against the audio, so the
   * studio no longer shades its words doubtful. The words keep the recognizer's confidence.
   */
  confirmed?: true;
}

export interface Transcript {
  language: string;
  /** Length of the recording in seconds. */
  duration: number;
  text: string;
  segments: TranscriptSegment[];
  /** Speaker labels in order of first appearance. */
  speakers: string[];
  /** Id of the recognizer engine that produced it. */
  engine: string;
  /** Voice profile per speaker label (kept with the transcript; used to match project speakers). */
  profiles?: Record<string, number[]>;
  /** Which acoustic transforms decoded how many chunks (absent: none was available). */
  adaptation?: TranscriptAdaptation;
}

export interface TranscriptAdaptation {
  /** Chunks decoded in this run (chunks kept from an interrupted run are not counted). */
  chunks: number;
  speakers: Array<{ speaker_id: string; chunks: number; seconds: number }>;
  /** Transforms fitted inside this recording (transcription/request-adaptation.ts), when any was. */
  within_recording?: { voices: number; chunks: number; transforms: number };
}
