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
 * A part of the recording carries its range, so it never takes the whole recording's name
 * ("take 2_00h01m05.250s-00h02m10.000s.edl"; no colons, which some file systems refuse).
 */
export function exportFileName(fileName: string, extension: string, range?: { start: number; end: number } | null): string {
  const last = cleanText(fileName).split(/[/\\]/).at(-1) ?? '';
  const base = cleanText(baseName(last)).replace(/^\.+/, '');
  const part = range ? `_${rangeStamp(range.start)}-${rangeStamp(range.end)}` : '';
  return `${base || 'transcript'}${part}.${extension}`;
}

/** A time in a file name, to the millisecond: 65.25 → "00h01m05.250s". */
function rangeStamp(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${two(h)}h${two(m)}m${two(s)}.${String(ms % 1000).padStart(3, '0')}s`;
}
