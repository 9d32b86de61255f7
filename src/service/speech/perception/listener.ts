import type { AnalysisSegment, AudienceEvent, Baseline, Delivery, Emphasis, Perception } from '../../../shared/schemas/analysis';
import { dimensions, emotionOf } from './dimensions';
import { findEmphasis } from './emphasis';
import { deliveryFlags, deliveryGrade, deliveryScore, takeQuality } from './grade';
import { deliveryLabels, endingDrop, type LineFeatures } from './labels';
import { editorNote } from './note';
import { findRestarts } from './restarts';
import { lineVerdict, type Spoiler } from './verdict';
import type { WordMeasure } from './words';

/** What a listener gets for one line: its measured values, its words, its speaker's norms, the audience, the audio. */
export interface ListenInput {
  /** The line as measured (prosody relative to the speaker filled in); `perception` still null. */
  segment: AnalysisSegment;
  words: ReadonlyArray<WordMeasure>;
  baseline: Baseline | undefined;
  speaker_hesitations_per_minute: number;
  events: ReadonlyArray<AudienceEvent>;
  /** Why the line is unusable (verdict.ts `spoilers`, over the whole recording's lines), empty when it is not. */
  spoilers: ReadonlyArray<Spoiler>;
  /** The line's samples (16 kHz mono), for a listener that listens; the built-in one does not. */
  audio: Float32Array;
}

export interface Listening {
  perception: Perception;
  delivery: Delivery;
  emphasis: Emphasis[];
}

/**
 * How each line sounds. The built-in listener infers it from the measures (`source: "estimate"`); a
 * model-based listener, loaded from TAKELINE_MODELS_DIR when one is installed, would say `heard` and count in
 * `coverage.listened`. None is installed or supported yet, so the analysis uses the built-in one and says so.
 */
export interface Listener {
  readonly name: string;
  /** True only for a listener whose values come from a model that listened to the audio. */
  readonly heard: boolean;
  listen(input: ListenInput, signal?: AbortSignal): Promise<Listening>;
}

/** An audience event starting this soon after a line's end is a reaction to it. */
export const REACTION_AFTER = 2;
const REACTION_TYPES = new Set(['applause', 'laughter', 'cheering']);

/** Audience reactions to a line: events overlapping it or starting within REACTION_AFTER after its end. */
export function reactionsTo(line: { start: number; end: number }, events: ReadonlyArray<AudienceEvent>): string[] {
  const types = events
    .filter((e) => REACTION_TYPES.has(e.type) && e.start < line.end + REACTION_AFTER && e.end > line.start)
    .map((e) => e.type as string);
  return [...new Set(types)];
}

/** The rules of README "Perception" over one line: pure, deterministic. */
export function estimateLine(input: Omit<ListenInput, 'audio'>): Listening {
  const s = input.segment;
  const emphasis = findEmphasis(input.words, input.baseline);
  const features: LineFeatures = {
    speech_seconds: Math.max(0, s.speech_end - s.speech_start),
    prosody: s.prosody,
    words: input.words,
    baseline: input.baseline,
    speaker_hesitations_per_minute: input.speaker_hesitations_per_minute,
    emphasis,
  };
  const labels = deliveryLabels(features);
  const reactions = reactionsTo(s, input.events);
  const dims = dimensions(features, labels, reactions);
  const score = deliveryScore(dims, labels);
  const grade = deliveryGrade(score, labels);
  const restarts = findRestarts(input.words);
  const issues = s.quality.issues;
  const verdict = lineVerdict({ spoilers: input.spoilers, quality: s.quality, labels, grade, restarts: restarts.length });
  const note = editorNote({ verdict, labels, grade, score, quality_score: s.quality.score, prosody: s.prosody, emphasis, restarts, ending_drop_db: endingDrop(input.words) });
  return {
    perception: {
      emotion: emotionOf(dims, labels, reactions),
      ...dims,
      take_quality: takeQuality(score, s.quality.score),
      delivery: labels,
      reactions,
      emphasis: emphasis.map((e) => e.word),
      audio_issues: [...new Set(issues.map((i) => i.type))],
      note,
      start: s.start,
      end: s.end,
      source: 'estimate',
    },
    delivery: { score, label: grade, flags: deliveryFlags(labels, s.prosody.longest_pause, restarts.length) },
    emphasis,
  };
}

/** The built-in listener: the rules over the measures; it never listens. */
export function createEstimateListener(): Listener {
  return {
    name: 'estimate',
    heard: false,
    listen: async (input) => estimateLine(input),
  };
}
