import type { MediaTools } from '../media/tools';
import type { AnalysisSegment } from '../../shared/schemas/analysis';
import type { StageName } from './stages';

/** A transcript line as the analysis reads it. */
export interface LineInput {
  id: number;
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: Array<{ word: string; start: number; end: number }>;
}

/** What the job hands its process: the recording, its lines, and the checkpoints already stored. */
export interface AnalysisRequest {
  file: string;
  /** The recording's length as stored, in seconds: sizes the decode's buffer without probing the file again. */
  duration?: number;
  tools: MediaTools;
  modelsDir: string | null;
  /** The recognizer's pronunciation dictionary (syllable counts). */
  dictionary: string;
  lines: LineInput[];
  /** Parts stored by earlier attempts of this run, by name. */
  parts: Record<string, unknown>;
  /** Lines already published by earlier attempts. */
  doneLines: number[];
  /** Those lines as stored (the listening and summary stages read them); absent = none. */
  published?: AnalysisSegment[];
}

/** What the worker reports, in order. A part or a batch of lines is sent only once complete. */
export type AnalysisMessage =
  | { type: 'stage'; stage: StageName; fraction: number }
  | { type: 'part'; name: string; value: unknown }
  | { type: 'lines'; lines: AnalysisSegment[] }
  | { type: 'unavailable'; reason: string }
  | { type: 'done' }
  | { type: 'failed'; message: string; forUser: boolean };
