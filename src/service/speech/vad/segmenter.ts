import type { Span } from '../types';

/**
 * Turns a stream of per-window speech probabilities into speech spans with hysteresis, the way Silero's
 * own `get_speech_timestamps` does, but incrementally: a span is returned as soon as it is final, so the
 * caller never holds more than the current window.
 */
export interface SpeechSegmenterOptions {
  /** A window at or above this probability starts (or continues) speech. Default 0.5 (Silero's default). */
  threshold?: number;
  /** Speech ends only after probabilities fall below this. Default threshold − 0.15 (Silero's default). */
  negThreshold?: number;
  /** Spans shorter than this (before padding) are dropped as clicks and breaths. Default 0.25 s. */
  minSpeechSeconds?: number;
  /**
   * Silence must last this long to end a span. Default 0.3 s: longer than Silero's 0.1 s so that the
   * pauses inside a sentence do not cut it into fragments a recognizer would decode without context.
   */
  minSilenceSeconds?: number;
  /** Added before and after each span, so soft onsets and word tails reach the recognizer. Default 0.1 s. */
  speechPadSeconds?: number;
}

export type ResolvedSegmenterOptions = Required<SpeechSegmenterOptions>;

export function resolveSegmenterOptions(options: SpeechSegmenterOptions = {}): ResolvedSegmenterOptions {
  const threshold = options.threshold ?? 0.5;
  return {
    threshold,
    negThreshold: options.negThreshold ?? Math.max(0.01, threshold - 0.15),
    minSpeechSeconds: options.minSpeechSeconds ?? 0.25,
    minSilenceSeconds: options.minSilenceSeconds ?? 0.3,
    speechPadSeconds: options.speechPadSeconds ?? 0.1,
  };
}

/** Where a segmenter stands (JSON-safe), so a stream can go on from it in another run. */
export interface SegmenterState {
  windows: number;
  speechStart: number | null;
  silenceStart: number | null;
  lastEnd: number;
}

// Window times are multiples of a float; compare durations with a margin far below one sample.
const EPSILON = 1e-7;

export class SpeechSegmenter {
  private readonly opts: ResolvedSegmenterOptions;
  private windows = 0;
  private speechStart: number | null = null;
  private silenceStart: number | null = null;
  /** End of the last span returned, so padding never makes spans overlap. */
  private lastEnd: number;

  constructor(
    /** Seconds each probability covers (512 / 16 000 for Silero at 16 kHz). */
    private readonly windowSeconds: number,
    options: SpeechSegmenterOptions = {},
    /** Added to every time returned. */
    private readonly offset = 0,
  ) {
    this.opts = resolveSegmenterOptions(options);
    this.lastEnd = offset;
  }

  /** No span returned later can start before this time (seconds, offset included). */
  get settledUntil(): number {
    const from = this.speechStart ?? this.windows * this.windowSeconds;
    return Math.max(this.lastEnd, this.offset + from - this.opts.speechPadSeconds);
  }

  snapshot(): SegmenterState {
    return { windows: this.windows, speechStart: this.speechStart, silenceStart: this.silenceStart, lastEnd: this.lastEnd };
  }

  /** Goes on from a snapshot taken with the same options and offset. */
  restore(state: SegmenterState): void {
    this.windows = state.windows;
    this.speechStart = state.speechStart;
    this.silenceStart = state.silenceStart;
    this.lastEnd = state.lastEnd;
  }

  /** Feeds the next window's probability; returns the spans that became final (zero or one). */
  push(probability: number): Span[] {
    const t = this.windows * this.windowSeconds;
    this.windows++;
    const { threshold, negThreshold, minSilenceSeconds } = this.opts;
    if (probability >= threshold) {
      this.silenceStart = null;
      if (this.speechStart === null) this.speechStart = t;
      return [];
    }
    if (this.speechStart === null || probability >= negThreshold) return [];
    if (this.silenceStart === null) this.silenceStart = t;
    const position = this.windows * this.windowSeconds;
    if (position - this.silenceStart < minSilenceSeconds - EPSILON) return [];
    const span = this.close(this.speechStart, this.silenceStart, position);
    this.speechStart = null;
    this.silenceStart = null;
    return span;
  }

  /** Ends the stream; `durationSeconds` is the audio's true length (the last window may be partial). */
  finish(durationSeconds = this.windows * this.windowSeconds): Span[] {
    if (this.speechStart === null) return [];
    // Speech running into the end of the file ends with the file, as in Silero's reference code.
    const span = this.close(this.speechStart, durationSeconds, durationSeconds);
    this.speechStart = null;
    this.silenceStart = null;
    return span;
  }

  private close(rawStart: number, rawEnd: number, limit: number): Span[] {
    const { minSpeechSeconds, speechPadSeconds } = this.opts;
    if (rawEnd - rawStart < minSpeechSeconds - EPSILON) return [];
    const start = Math.max(this.lastEnd, this.offset + rawStart - speechPadSeconds);
    const end = this.offset + Math.min(limit, rawEnd + speechPadSeconds);
    this.lastEnd = end;
    return [{ start: round(start), end: round(end) }];
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 1e4) / 1e4;
}
