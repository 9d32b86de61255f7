import { renderExport } from '../export';
import type { ExportFile } from '../export/types';
import type { Transcript } from '../speech/types';

/** SRT and VTT for the OpenAI endpoint: real time, speakers as VTT voice tags, the same writer as exports. */
export function renderSubtitles(format: 'srt' | 'vtt', transcript: Transcript, session: { id: string; fileName: string }): ExportFile {
  return renderExport(format, { session: { ...session, duration: transcript.duration }, transcript, media: null });
}
