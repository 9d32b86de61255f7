/** Shapes of the Takeline service's JSON, as the studio reads them (see /work/shared/INTERFACE.md). */
import type { FrameRate } from '../lib/timecode';

export interface Project {
  id: string;
  key: string;
  name: string;
  created_at: string;
}

export interface ProjectSpeaker {
  id: string;
  number: number;
  name: string;
  label: string;
  clip_count: number;
  evidence_seconds: number;
  /** The speaker's acoustic adaptation; `corrected_seconds` of it come from corrected lines. */
  adaptation?: { recordings: number; seconds: number; corrected_seconds: number; map_means: boolean; updated_at: string } | null;
}

export interface ProjectDetail extends Project {
  speakers: ProjectSpeaker[];
}

export interface Media {
  frame_rate: FrameRate;
  drop_frame: boolean;
  start_timecode: string | null;
  timecode_source: string;
  tape: string;
}

export interface MediaInput {
  frame_rate: FrameRate;
  drop_frame: boolean;
  start_timecode: string | null;
  tape: string;
}

export interface TranscriptWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  speaker: string;
}

export interface TranscriptSegment {
  id: number;
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: TranscriptWord[];
  /** The editor saved this whole line: every word of it was checked by a person. */
  confirmed?: true;
}

export interface Transcript {
  text: string;
  speakers: string[];
  segments: TranscriptSegment[];
}

export type SessionStatus = 'queued' | 'running' | 'complete' | 'failed';

export interface Session {
  id: string;
  project: { id: string; key: string; name: string };
  file_name: string;
  duration: number | null;
  format: {
    container: string;
    codec: string;
    sample_rate: number;
    channels: number;
    size_bytes: number;
  } | null;
  created_at: string;
  status: SessionStatus;
  progress: number;
  /** What processing is doing or waiting for (`waiting for a worker`, `waiting for storage`; docs/jobs.md). */
  stage?: string | null;
  error: string | null;
  language: string | null;
  media: Media | null;
  transcript: Transcript | null;
}

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface Peaks {
  duration: number;
  peaks_per_second: number;
  peaks: number[];
}

export interface AudioAddress {
  url: string;
  expires_in: number;
}

export type ExportFormat = 'srt' | 'vtt' | 'edl' | 'fcpxml' | 'csv' | 'selects_edl' | 'analysis_csv' | 'diarized_json' | 'wav';

export const EXPORT_FORMATS: { format: ExportFormat; label: string }[] = [
  { format: 'srt', label: 'Subtitles (SRT)' },
  { format: 'vtt', label: 'WebVTT' },
  { format: 'edl', label: 'Edit decision list (EDL)' },
  { format: 'fcpxml', label: 'Final Cut Pro XML' },
  { format: 'csv', label: 'Spreadsheet (CSV)' },
  { format: 'selects_edl', label: 'Selects EDL (one cut per select)' },
  { format: 'analysis_csv', label: 'Lines with analysis (CSV)' },
  { format: 'diarized_json', label: 'Speakers and lines (diarized JSON)' },
  { format: 'wav', label: 'Audio (WAV)' },
];

export function isActive(status: SessionStatus): boolean {
  return status === 'queued' || status === 'running';
}

/** Dubbing shapes come from the service's own schemas (src/shared/schemas/dubs.ts), as types only. */
export type { Dub, DubLine, DubRevision, LineRender, Revoice, RevoiceLine, VoiceInfo, SpeechModel } from '../../../shared/schemas';
