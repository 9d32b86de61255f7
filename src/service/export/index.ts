/** Editor and subtitle exports of a transcript: `renderExport(format, input)` → file body and type. */
import { renderAnalysisCsv } from './analysis-csv';
import { renderCsv } from './csv';
import { renderEdl, renderSelectsEdl } from './edl';
import { renderDiarizedJson } from './diarized-json';
import { renderFcpxml } from './fcpxml';
import { renderSrt, renderVtt } from './subtitles';
import { baseName, cleanText } from './text';
import type { ExportFile, ExportFormat, ExportInput } from './types';

export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportInput,
  type ExportFile,
  type ExportMedia,
  type ExportMarker,
  type ExportMoment,
  type ExportLineAnalysis,
  type ExportTranscript,
} from './types';

const RENDERERS: Record<ExportFormat, (input: ExportInput) => ExportFile> = {
  srt: renderSrt,
  vtt: renderVtt,
  edl: renderEdl,
  fcpxml: renderFcpxml,
  csv: renderCsv,
  selects_edl: renderSelectsEdl,
  analysis_csv: renderAnalysisCsv,
  diarized_json: renderDiarizedJson,
};

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(RENDERERS, value);
}

/**
 * Renders one export. Throws RangeError if the media's start timecode is not valid for its frame rate
 * (the API validates it on PATCH, so this means stored data went bad).
 */
export function renderExport(format: ExportFormat, input: ExportInput): ExportFile {
  const render = RENDERERS[format];
  if (!render) throw new RangeError(`unknown export format "${String(format)}"`);
  return render(input);
}

/**
 * Download name for an export: the recording's name with the export's extension ("take 2.wav" →
 * "take 2.edl"), without any directory part or leading dots; "transcript" when nothing usable is left.
 */
export function exportFileName(fileName: string, extension: string): string {
  const last = cleanText(fileName).split(/[/\\]/).at(-1) ?? '';
  const base = cleanText(baseName(last)).replace(/^\.+/, '');
  return `${base || 'transcript'}.${extension}`;
}
