import type { Span, SpeakerTurn, Transcript } from '../speech/types';
import type { ResolvedEngine } from '../models/registry';
import type { ChunkCheckpoints } from './chunk-checkpoints';
import type { DiarizationCheckpoints } from './diarization-checkpoints';
import type { AdaptedSpeaker } from './adapting-recognizer';

export interface TranscribeRequest {
  file: string;
  /** The file's duration when the caller has probed it already (intake does): it is not probed again. */
  duration?: number;
  engine: ResolvedEngine;
  language: string;
  prompt?: string;
  /** The project's vocabulary: names and terms to expect, beside the prompt. */
  vocabulary?: readonly string[];
  /** The project's speakers with an acoustic transform: each chunk that sounds like one is decoded with it. */
  adaptedSpeakers?: readonly AdaptedSpeaker[];
  /** OpenAI's sampling temperature (0–1); engines that do not sample ignore it. */
  temperature?: number;
  minSpeakers?: number;
  maxSpeakers?: number;
  signal?: AbortSignal;
  /** Voice-activity settings for this request (OpenAI's chunking_strategy server_vad); defaults otherwise. */
  vad?: { threshold?: number; minSilenceSeconds?: number; speechPadSeconds?: number };
  onProgress?(fraction: number, stage: string): void;
  /** Recognized chunks kept across interruptions (a durable job's; absent for a request's own transcription). */
  checkpoints?: ChunkCheckpoints;
  /** Diarization's speech spans and result kept across interruptions (with `checkpoints`). */
  diarizationCheckpoints?: DiarizationCheckpoints;
  /** Each segment as soon as it is decoded, in order (speakers are provisional until the end). */
  onSegment?(segment: Span & { text: string }): void;
  /**
   * The diarizer's speaker turns, labelled as the transcript's speakers, once diarization is done (not
   * stored with the transcript: `diarized_json` segments span them, see diarized-segments.ts).
   */
  onTurns?(turns: SpeakerTurn[]): void;
}

/** Turns a recording into a transcript with the chosen engine; the HTTP layer and the job runner share it. */
export interface TranscriptionEngine {
  transcribe(request: TranscribeRequest): Promise<Transcript>;
  /**
   * Renames diarized speakers after the known speakers whose reference clips (data URLs) they match best,
   * as OpenAI's known_speaker_names[]/known_speaker_references[] do.
   */
  applyKnownSpeakers(transcript: Transcript, names: string[], references: string[], signal?: AbortSignal): Promise<Transcript>;
  close(): Promise<void>;
}
