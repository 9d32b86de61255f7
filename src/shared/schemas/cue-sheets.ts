import { z } from 'zod';

/** `?apply=valid` applies the rows that can be applied and reports the rest; by default any bad row changes nothing. */
export const CueSheetImportQuery = z.object({
  apply: z
    .enum(['all', 'valid'])
    .default('all')
    .meta({ description: '`all` (default): every row must apply, else nothing changes (422 listing each bad row); `valid`: apply the rows that can be, report the others in `skipped`' }),
});

export const CUE_SHEET_COLUMN_NAMES = ['Cue', 'Character', 'TC In', 'TC Out', 'Original Dialogue', 'Dialogue', 'Status', 'Notes', 'Take', 'Line ID'] as const;

export const CueSheetRowProblem = z
  .object({
    row: z.number().int().meta({ description: 'Row number in the sheet (the header is row 1)' }),
    cue: z.string().nullable(),
    column: z.enum(CUE_SHEET_COLUMN_NAMES).nullable(),
    code: z.string().meta({ description: 'e.g. cue_unknown, cue_duplicate, cue_moved, read_only, text_invalid, status_invalid, notes_changed, timecode_invalid, line_overlap, line_order, line_outside_dub' }),
    message: z.string(),
  })
  .meta({ id: 'CueSheetRowProblem' });

export const CueSheetImportResult = z
  .object({
    rows: z.number().int().meta({ description: 'Cue rows read (blank rows not counted)' }),
    applied: z
      .array(
        z.object({
          row: z.number().int(),
          cue: z.number().int(),
          line_id: z.number().int(),
          changed: z.array(z.enum(['text', 'timing', 'status', 'notes'])),
        }),
      )
      .meta({ description: 'The rows that changed their line; rows equal to the export change nothing and are not listed' }),
    skipped: z.array(CueSheetRowProblem).meta({ description: 'Rows not applied (only with `?apply=valid`)' }),
    lines_revision: z.number().int().meta({ description: "The dub's lines_revision after the import" }),
  })
  .meta({ id: 'CueSheetImportResult' });
export type CueSheetImportResult = z.infer<typeof CueSheetImportResult>;
