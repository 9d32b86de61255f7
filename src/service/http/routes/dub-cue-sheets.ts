import fs from 'node:fs';
import type { Request, Response, Router } from 'express';
import { CueSheetImportQuery } from '../../../shared/schemas';
import type { ServiceContext } from '../../context';
import { CueSheets, type CueSheetFormat } from '../../dubbing/cue-sheets/cue-sheets';
import { InvalidInputError, issue } from '../../errors';
import { exportFileName } from '../../export';
import type { DubRecord } from '../../dubbing/dubbing';
import { parseInput } from '../../validation';
import { readMultipart } from '../multipart';

/** A cue sheet is text: far below any dub's upload limit. */
export const CUE_SHEET_MAX_BYTES = 20 * 1024 * 1024;

/** The dub's cue sheet: `GET …/cue-sheet.csv|.xlsx` and `POST …/cue-sheet` (multipart `file`, CSV or xlsx). */
export function cueSheetRoutes(router: Router, ctx: ServiceContext, dubOf: (req: Request) => Promise<DubRecord>, author: (res: Response) => string): void {
  const sheets = new CueSheets(ctx.dubbing);
  const context = async (dub: DubRecord) => ({ media: (await ctx.recordings.require(dub.sessionId)).media, speakerNames: await ctx.speakerNames(dub.sessionId) });

  for (const format of ['csv', 'xlsx'] as CueSheetFormat[]) {
    router.get(`/:session_id/dubs/:dub_id/cue-sheet.${format}`, async (req, res) => {
      const dub = await dubOf(req);
      const file = await sheets.export(dub, format, await context(dub));
      // attachment() sets a type from the file name's extension, so the sheet's own type goes after it.
      res.attachment(exportFileName(dub.name, file.extension)).type(file.contentType).send(file.body);
    });
  }

  router.post('/:session_id/dubs/:dub_id/cue-sheet', async (req, res) => {
    const dub = await dubOf(req);
    const { apply } = parseInput(CueSheetImportQuery, req.query, 'query');
    const form = await readMultipart(req, ctx.layout.uploads, { maxFileBytes: Math.min(ctx.config.maxUploadBytes, CUE_SHEET_MAX_BYTES), maxFieldBytes: 1024 });
    try {
      const files = form.files.filter((f) => f.field === 'file');
      if (files.length !== 1) throw new InvalidInputError([issue(['body', 'file'], files.length ? 'Send exactly one file' : 'Field required', files.length ? 'duplicate_part' : 'missing', null)]);
      const data = fs.readFileSync(files[0]!.path);
      res.json(await sheets.import(dub, data, { applyValid: apply === 'valid', author: author(res), context: await context(dub) }));
    } finally {
      form.cleanup();
    }
  });
}
