import crypto from 'node:crypto';
import { cueOut } from '../../../shared/dubbing/cue-out';
import type { CueSheetImportResult, DubLine } from '../../../shared/schemas';
import { ConflictError, InvalidInputError, issue, NotFoundError } from '../../errors';
import { resolveTimebase } from '../../export/timebase';
import type { ExportMedia } from '../../export/types';
import type { DubRecord, DubStore } from '../../storage/dub-store';
import type { Dubbing } from '../dubbing';
import { planCueSheetImport, type RowProblem } from './plan';
import { CueSheetFormatError, readCueSheet } from './read';
import { cueSheetRows, type CueSheetLine } from './rows';
import { cueSheetCsv, cueSheetXlsx } from './write';

export type CueSheetFormat = 'csv' | 'xlsx';

export interface CueSheetContext {
  /** The recording's timebase (null: 25 fps non-drop from 00:00:00:00, as the other exports assume). */
  media: ExportMedia | null;
  speakerNames: Record<string, string>;
}


/** A line of the API as the sheet shows it; `take` is the chosen take's number, if any. */
function sheetLine(line: DubLine, takeNumbers: Map<string, number>): CueSheetLine {
  const takeId = line.render?.take_id ?? null;
  return {
    id: line.id,
    speaker: line.speaker,
    start: line.start,
    out: cueOut(line),
    text: line.text,
    original_text: line.original_text,
    review_status: line.review_status,
    notes: line.notes,
    take: takeId ? (takeNumbers.get(takeId) ?? null) : null,
  };
}

/** 422 listing every row that cannot be applied, each located at its row and column. */
function rowIssues(problems: readonly RowProblem[], cells: (p: RowProblem) => string | null) {
  return problems.map((p) =>
    issue(['file', 'rows', p.row, p.column ?? 'row'], `Row ${p.row}${p.cue ? ` (cue ${p.cue})` : ''}: ${p.message}`, p.code, cells(p), { row: p.row, cue: p.cue, column: p.column }),
  );
}

/**
 * The dub's cue sheet out (CSV, xlsx) and in: an imported sheet updates lines' text, timing, review status
 * and notes by cue number, as line edits do (undoable corrections; a text change is voiced by the next
 * revoice, not by the import).
 */
export class CueSheets {
  constructor(private readonly dubbing: Dubbing) {}

  private requireReady(dub: DubRecord): void {
    if (dub.status !== 'ready') throw new ConflictError(`The dub's lines are not ready (status: ${dub.status}).`);
  }

  /** The sheet's rows and the lines they stand for, in time order, read from `store` (a transaction's, to change them). */
  private async snapshot(store: DubStore, dub: DubRecord, context: CueSheetContext) {
    const [records, revision, notes, takes] = await Promise.all([store.lines(dub.id), store.revision(dub.id, dub.currentRevision), store.notes(dub.id), store.dubTakes(dub.id)]);
    const takeNumbers = new Map(takes.map((t) => [t.id, t.number]));
    const ordered = [...records].sort((a, b) => a.start - b.start || a.id - b.id);
    const clock = resolveTimebase(context.media).clock;
    const rows = cueSheetRows(
      ordered.map((l) => sheetLine(this.dubbing.lineJson(dub, l, revision, notes), takeNumbers)),
      clock,
      context.speakerNames,
    );
    return { rows, lines: ordered, clock };
  }

  async export(dub: DubRecord, format: CueSheetFormat, context: CueSheetContext): Promise<{ body: Buffer; contentType: string; extension: string }> {
    this.requireReady(dub);
    const { rows } = await this.snapshot(this.dubbing.store, dub, context);
    if (format === 'csv') return { body: cueSheetCsv(rows), contentType: 'text/csv; charset=utf-8; header=present', extension: 'cue-sheet.csv' };
    const body = await cueSheetXlsx(rows, { title: dub.name, timebase: resolveTimebase(context.media).description });
    return { body, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'cue-sheet.xlsx' };
  }

  /**
   * Applies a sheet in one transaction that holds the dub, read against its lines as they are then. With a
   * row that cannot be applied nothing changes (422 listing every such row), unless `applyValid`: then the
   * other rows are applied and the rest reported.
   */
  async import(dub: DubRecord, data: Buffer, options: { applyValid: boolean; author: string; context: CueSheetContext }): Promise<CueSheetImportResult> {
    this.requireReady(dub);
    let sheet;
    try {
      sheet = await readCueSheet(data);
    } catch (error) {
      if (error instanceof CueSheetFormatError) throw new InvalidInputError([issue(['file'], error.message, 'cue_sheet_unreadable', null)]);
      throw error;
    }
    const byRow = new Map(sheet.rows.map((r) => [r.row, r.cells]));
    return this.dubbing.withTakesPruned(dub, async (store) => {
      if (!(await store.lockDub(dub.id))) throw new NotFoundError('Dub not found.');
      const now = (await store.dubById(dub.id))!;
      const { rows, lines, clock } = await this.snapshot(store, now, options.context);
      const plan = planCueSheetImport(sheet, rows, lines, clock, now.frames / now.sampleRate);
      if (plan.problems.length && !options.applyValid) {
        throw new InvalidInputError(rowIssues(plan.problems, (p) => (p.column ? (byRow.get(p.row)?.[p.column] ?? null) : null)));
      }
      const applied: CueSheetImportResult['applied'] = [];
      const at = new Date().toISOString();
      for (const change of plan.changes) {
        const line = lines.find((l) => l.id === change.lineId)!;
        const text = change.text ?? line.text;
        const start = change.start ?? line.start;
        const end = change.end ?? line.end;
        const edited = text !== line.text || start !== line.start || end !== line.end;
        // As a line edit: a change of text or timing puts the review back to todo unless the sheet sets a status.
        const reviewStatus = change.reviewStatus ?? (edited ? 'todo' : line.reviewStatus);
        const changed: CueSheetImportResult['applied'][number]['changed'] = [];
        if (text !== line.text) changed.push('text');
        if (start !== line.start || end !== line.end) changed.push('timing');
        if (reviewStatus !== line.reviewStatus) changed.push('status');
        if (edited || reviewStatus !== line.reviewStatus) {
          await store.updateLine(dub.id, { id: line.id, text, voice: line.voice, start, end, reviewStatus });
        }
        if (edited) {
          const after = (await store.lines(dub.id)).find((l) => l.id === line.id)!;
          await store.insertEdit(dub.id, { op: 'correct', author: options.author, before: [line], after: [after] });
        }
        for (const text of change.notes) await store.insertNote(dub.id, { id: crypto.randomUUID(), lineId: line.id, author: options.author, text, createdAt: at });
        if (change.notes.length) changed.push('notes');
        applied.push({ row: change.row, cue: change.cue, line_id: line.id, changed });
      }
      return { rows: plan.rows, applied, skipped: plan.problems, lines_revision: (await store.dubById(dub.id))!.linesRevision };
    });
  }
}

