import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { CueSheetImportQuery, CueSheetImportResult, ValidationError } from '../../shared/schemas';

type Op = (o: ZodOpenApiOperationObject & { operationId: string }) => ZodOpenApiOperationObject;

const COLUMNS =
  'Columns: Cue (1 upwards in time order), Character (the project\'s name for the speaker), TC In, TC Out (the frame each falls in, on the recording\'s timebase: PATCH …/media; without one 25 fps non-drop from 00:00:00:00), Original Dialogue, Dialogue, Status (todo, needs_changes, approved), Notes ("author: text", oldest first, joined by " | "), Take (the chosen take\'s number), Line ID.';

/** The dub's cue sheet routes (dubbing/cue-sheets). */
export function cueSheetPaths(op: Op, dubParam: z.ZodObject, speechErrors: (...statuses: number[]) => Record<string, unknown>): ZodOpenApiPathsObject {
  const download = (format: 'csv' | 'xlsx', type: string) => ({
    get: op({
      operationId: format === 'csv' ? 'getDubCueSheetCsv' : 'getDubCueSheetXlsx',
      summary: `The dub's cue sheet as ${format === 'csv' ? 'CSV (UTF-8 with a byte order mark, RFC 4180)' : 'an xlsx workbook (one sheet "Cues", text cells)'}`,
      description: `${COLUMNS} 409 while the dub is preparing.`,
      requestParams: { path: dubParam },
      responses: {
        '200': { description: `Attachment <dub>.cue-sheet.${format}`, content: { [type]: { schema: z.string().meta({ format: format === 'xlsx' ? 'binary' : undefined }) } } },
        ...speechErrors(401, 404, 409, 422),
      },
    }),
  });
  return {
    '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet.csv': download('csv', 'text/csv'),
    '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet.xlsx': download('xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
    '/v1/speech/transcriptions/{session_id}/dubs/{dub_id}/cue-sheet': {
      post: op({
        operationId: 'importDubCueSheet',
        summary: 'Import a cue sheet (CSV or xlsx): update lines by cue number',
        description: `${COLUMNS} A row updates the line its cue number names (as the dub's sheet numbers it now) where its TC In, TC Out, Dialogue, Status or Notes differ from the export; a row equal to the export changes nothing, and lines without a row stay. Notes are added after the line's notes; the others cannot be changed or removed. The other columns cannot change (read_only), and a Line ID that is not the cue's line now means lines were split or merged since the export (cue_moved). Text and timing changes are undoable corrections (review back to todo unless the row sets a status), voiced by the next revoice. Any row that cannot be applied: 422 with every such row (loc: body.file.rows.<row>.<column>; ctx: row, cue, column) and nothing changes, unless ?apply=valid.`,
        requestParams: { path: dubParam, query: CueSheetImportQuery },
        requestBody: { content: { 'multipart/form-data': { schema: z.object({ file: z.string().meta({ format: 'binary', description: 'The sheet: CSV (comma, semicolon or tab; UTF-8) or xlsx (first worksheet)' }) }) } } },
        responses: {
          '200': { description: 'What changed, row by row', content: { 'application/json': { schema: CueSheetImportResult } } },
          '422': { description: 'Rows that cannot be applied (nothing changed), or a file that is not a cue sheet', content: { 'application/json': { schema: ValidationError } } },
          ...speechErrors(401, 404, 409, 413, 415),
        },
      }),
    },
  };
}
