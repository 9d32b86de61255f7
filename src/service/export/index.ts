/** Editor and subtitle exports of a transcript: `renderExport(format, input)` → file body and type. */
import { renderCsv } from './csv';
import { renderEdl } from './edl';
import { renderFcpxml } from './fcpxml';
import { renderSrt, renderVtt } from './subtitles';
import type { ExportFile, ExportFormat, ExportInput } from './types';

export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportInput,
  type ExportFile,
  type ExportMedia,
  type ExportMarker,
  type ExportTranscript,
} from './types';

const RENDERERS: Record<ExportFormat, (input: ExportInput) => ExportFile> = {
  srt: renderSrt,
  vtt: renderVtt,
  edl: renderEdl,
  fcpxml: renderFcpxml,
  csv: renderCsv,
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
