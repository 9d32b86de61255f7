import type { CueSheetImportResult } from '../../../shared/schemas/cue-sheets';

export type CueSheetFormat = 'csv' | 'xlsx';
export type { CueSheetImportResult };

/** A dub's cue sheet out (CSV, xlsx) and in. */
export interface CueSheetsApi {
  exportCueSheet(sessionId: string, dubId: string, format: CueSheetFormat): Promise<{ blob: Blob; fileName: string }>;
  /** Imports a CSV or xlsx sheet; 422 (ApiError, one message per bad row) changes nothing unless `applyValid`. */
  importCueSheet(sessionId: string, dubId: string, file: File, applyValid: boolean): Promise<CueSheetImportResult>;
}

type Json = <T>(path: string, init?: RequestInit) => Promise<T>;
type Download = (path: string, fallbackName: string) => Promise<{ blob: Blob; fileName: string }>;

export function cueSheetsApi(json: Json, download: Download): CueSheetsApi {
  const dub = (sid: string, dubId: string) => `/v1/speech/transcriptions/${encodeURIComponent(sid)}/dubs/${encodeURIComponent(dubId)}`;
  return {
    exportCueSheet: (sid, dubId, format) => download(`${dub(sid, dubId)}/cue-sheet.${format}`, `cue-sheet.${format}`),
    importCueSheet: (sid, dubId, file, applyValid) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return json<CueSheetImportResult>(`${dub(sid, dubId)}/cue-sheet${applyValid ? '?apply=valid' : ''}`, { method: 'POST', body: form });
    },
  };
}
