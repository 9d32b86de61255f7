import type { TranscriptSegment, TranscriptWord } from '../speech/types';
import type { FrameRate } from '../../shared/timecode';
import type { AnalysisSegment, Moment } from '../../shared/schemas/analysis';

/**
 * `selects_edl`: one event per `select` moment, strung out on a record timeline; `analysis_csv`: one row
 * per transcript line with its analysis (columns in analysis-csv.ts); `diarized_json`: the upload's OpenAI shape of
 * the current transcript (diarized-json.ts). The editor formats mark moments too.
 */
export const EXPORT_FORMATS = ['srt', 'vtt', 'edl', 'fcpxml', 'csv', 'selects_edl', 'analysis_csv', 'diarized_json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The recording's timebase as the API stores it (PATCH …/media). */
export interface ExportMedia {
  frame_rate: FrameRate;
  drop_frame: boolean;
  /** Label of the first frame, in the timebase's notation; null means 00:00:00:00. */
  start_timecode: string | null;
  /** Tape / reel name; null when unknown. */
  tape: string | null;
}

/** A moment or stretch to mark in editor exports (analysis results; transcript segments are added always). */
export interface ExportMarker {
  start: number;
  end: number;
  label: string;
  /** What found it, e.g. "laughter", "music"; shown in CSV and as the marker colour group in EDL. */
  kind: string;
}

/** The parts of a Moment the exports read (a full Moment fits). */
export type ExportMoment = Pick<
  Moment,
  'id' | 'type' | 'start' | 'end' | 'speaker' | 'score' | 'reason' | 'segment_ids'
> &
  Pick<Moment, 'text' | 'sentence_complete'>;

/** The parts of an analysed line the analysis CSV reads (a full AnalysisSegment fits). */
export type ExportLineAnalysis = Pick<
  AnalysisSegment,
  'id' | 'prosody' | 'quality' | 'perception' | 'delivery' | 'emphasis'
>;

/** The parts of a Transcript the exports read (a full Transcript fits). */
export interface ExportTranscript {
  speakers: string[];
  segments: Array<
    Pick<TranscriptSegment, 'id' | 'speaker' | 'start' | 'end' | 'text'> & {
      words?: Array<Pick<TranscriptWord, 'start' | 'end' | 'word'>>;
    }
  >;
}

export interface ExportInput {
  session: {
    id: string;
    fileName: string;
    /** Seconds. */
    duration: number;
    /** Audio channels and sample rate of the source, when known (FCPXML asset description). */
    channels?: number;
    sampleRate?: number;
  };
  transcript: ExportTranscript;
  media: ExportMedia | null;
  markers?: ExportMarker[];
  /** The analysis's moments (select / unusable / trim): markers in EDL and FCPXML, events of the selects EDL. */
  moments?: ExportMoment[];
  /** Each line's analysis by segment id (the analysis CSV's columns); lines without one leave them empty. */
  lines?: ExportLineAnalysis[];
  /** Display names by speaker label (S1 → "Ada"); labels are used where a name is missing. */
  speakerNames?: Record<string, string>;
  /** Part of the recording exported (seconds; see range.ts): the EDL event and the FCPXML clip span it. */
  range?: { start: number; end: number };
}

export interface ExportFile {
  body: string;
  contentType: string;
  extension: string;
}
