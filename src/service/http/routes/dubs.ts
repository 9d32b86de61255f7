import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { DubExportQuery, DubFromRecording, DubId, DubPatch, LineMerge, LineNoteInput, LinePatch, LineSplit, LinesQuery, TakeChoice, TakesQuery, TakesRequest, RecordedTakeFields } from '../../../shared/schemas';
import { takeResource } from '../../dubbing/takes';
import { accessOf } from '../authenticate';
import { authorOf } from '../../audit/actor';
import { renderDubCues, renderDubEdl, renderDubFcpxml } from '../../export/dub-cues';
import { exportFileName } from '../../export';
import { stemStream } from '../../dubbing/stem';
import { revisionStems } from '../../dubbing/stems/revision-stems';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { clearFileHeaders, sendFileFailure } from '../send-file-errors';
import { readMultipart, singleField, type MultipartForm } from '../multipart';
import { baseUrl } from './transcriptions';
import { verifyResourceSignature } from '../../auth/signed-url';
import { revisionResource } from '../../dubbing/dubbing';
import { computePeaks, type Peaks } from '../../media/peaks';
import { dubKeys } from '../../dubbing/dub-files';
import { sendBlob } from '../send-blob';
import { InvalidInputError, issue } from '../../errors';
import { parseInput } from '../../validation';
import { inputIn } from '../input-location';
import { cueSheetRoutes } from './dub-cue-sheets';

const DubPath = z.object({ session_id: z.uuid(), dub_id: DubId });

/** How long `POST …/revoice` waits for the job before answering 202 (seconds). */
export const REVOICE_WAIT_DEFAULT = 20;
export const RevoiceQuery = z.object({
  wait: z.coerce.number().min(0).max(120).default(REVOICE_WAIT_DEFAULT).meta({ description: 'Seconds to wait for the revoice to finish before answering 202 (0–120, default 20)' }),
});

function singleFileOptional(form: MultipartForm, name: string) {
  const matches = form.files.filter((f) => f.field === name);
  if (matches.length > 1) throw new InvalidInputError([issue(['body', name], 'Send exactly one file', 'duplicate_part', null)]);
  return matches[0];
}

/**
 * Dubs of a recording (`/v1/speech/transcriptions/{session_id}/dubs…`): upload, lines and corrections,
 * voices, revisions with signed audio, and the revoice (endpoint 7 of the interface).
 */
export function dubsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const dubbing = ctx.dubbing;

  const sessionOf = async (req: Request) => {
    const { session_id } = parseInput(z.object({ session_id: z.uuid() }), { session_id: req.params.session_id }, 'path');
    return ctx.recordings.require(session_id);
  };
  const dubOf = async (req: Request) => {
    const { session_id, dub_id } = parseInput(DubPath, { session_id: req.params.session_id, dub_id: req.params.dub_id }, 'path');
    await ctx.recordings.require(session_id);
    return dubbing.requireDub(session_id, dub_id);
  };

  /** Who made a note or an edit: the key's user or name, or "studio" for the studio's sign-in. */
  const author = (res: Response): string => authorOf(accessOf(res));
  const lineOf = async (req: Request) => {
    const dub = await dubOf(req);
    return { dub, line: await dubbing.requireLine(dub, String(req.params.line_id)) };
  };

  router.post('/:session_id/dubs', async (req, res) => {
    const session = await sessionOf(req);
    // A JSON body (already parsed by jsonBody) asks for a dub of the recording itself; multipart uploads a file.
    if (!req.is('multipart/form-data') && req.body !== undefined) {
      const body = parseInput(DubFromRecording, req.body, 'body');
      const dub = await dubbing.createFromRecording(session.id, body);
      res.status(201).location(`/v1/speech/transcriptions/${session.id}/dubs/${dub.id}`).json(await dubbing.toJson(dub));
      return;
    }
    const form = await readMultipart(req, ctx.layout.uploads, { maxFileBytes: ctx.config.maxUploadBytes, maxFieldBytes: 4 * 1024 * 1024 });
    try {
      const file = singleFileOptional(form, 'file');
      if (!file) throw new InvalidInputError([issue(['body', 'file'], 'Field required', 'missing', null)]);
      const dub = await dubbing.create(session.id, {
        file,
        background: singleFileOptional(form, 'background'),
        name: singleField(form, 'name'),
        lines: singleField(form, 'lines'),
        voices: singleField(form, 'voices'),
        defaultVoice: singleField(form, 'default_voice'),
      });
      res.status(201).location(`/v1/speech/transcriptions/${session.id}/dubs/${dub.id}`).json(await dubbing.toJson(dub));
    } finally {
      form.cleanup();
    }
  });

  router.get('/:session_id/dubs', async (req, res) => {
    const session = await sessionOf(req);
    const dubs = await dubbing.store.dubs(session.id);
    res.json({ data: await Promise.all(dubs.map((d) => dubbing.toJson(d))) });
  });

  router.get('/:session_id/dubs/:dub_id', async (req, res) => {
    res.json(await dubbing.toJson(await dubOf(req)));
  });

  router.patch('/:session_id/dubs/:dub_id', async (req, res) => {
    const dub = await dubOf(req);
    res.json(await dubbing.toJson(await dubbing.patch(dub, parseInput(DubPatch, req.body ?? {}, 'body'))));
  });

  router.delete('/:session_id/dubs/:dub_id', async (req, res) => {
    await dubbing.delete(await dubOf(req));
    res.status(204).end();
  });

  router.get('/:session_id/dubs/:dub_id/lines', async (req, res) => {
    const dub = await dubOf(req);
    res.json({ data: await dubbing.lines(dub, parseInput(LinesQuery, req.query, 'query')) });
  });

  router.get('/:session_id/dubs/:dub_id/lines/:line_id', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json(await dubbing.lineJsonNow(dub.id, line.id));
  });

  router.patch('/:session_id/dubs/:dub_id/lines/:line_id', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json(await dubbing.patchLine(dub, line, parseInput(LinePatch, req.body ?? {}, 'body'), author(res)));
  });

  // ---- dubbing workflow: split, merge, undo/redo, notes, exports ----

  router.post('/:session_id/dubs/:dub_id/lines/:line_id/split', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json(await dubbing.splitLine(dub, line, parseInput(LineSplit, req.body ?? {}, 'body'), author(res)));
  });

  router.post('/:session_id/dubs/:dub_id/lines/:line_id/merge', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json(await dubbing.mergeLine(dub, line, parseInput(LineMerge, req.body ?? {}, 'body').with, author(res)));
  });

  router.get('/:session_id/dubs/:dub_id/lines/:line_id/notes', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json({ data: await dubbing.lineNotes(dub, line) });
  });

  router.post('/:session_id/dubs/:dub_id/lines/:line_id/notes', async (req, res) => {
    const { dub, line } = await lineOf(req);
    const note = await dubbing.addNote(dub, line, parseInput(LineNoteInput, req.body ?? {}, 'body').text, author(res));
    res.status(201).json(note);
  });

  router.get('/:session_id/dubs/:dub_id/edits', async (req, res) => {
    const dub = await dubOf(req);
    res.json({ data: (await dubbing.store.edits(dub.id)).map((e) => dubbing.editJson(e)) });
  });

  router.post('/:session_id/dubs/:dub_id/edits/undo', async (req, res) => {
    res.json(await dubbing.undoRedo(await dubOf(req), 'undo'));
  });

  router.post('/:session_id/dubs/:dub_id/edits/redo', async (req, res) => {
    res.json(await dubbing.undoRedo(await dubOf(req), 'redo'));
  });

  router.get('/:session_id/dubs/:dub_id/export', async (req, res, next) => {
    const dub = await dubOf(req);
    const { format } = parseInput(DubExportQuery, req.query, 'query');
    const summary = await ctx.recordings.require(dub.sessionId);
    const { input, revision, regions } = await dubbing.exportInput(dub, summary.media, await ctx.speakerNames(dub.sessionId));
    if (format === 'stem_wav') {
      // Read from a local file of the revision (a download from S3 is let go once the stem is sent).
      const copy = await dubbing.files.local(dubbing.revisionKey(dub, revision));
      let stem: ReturnType<typeof stemStream>;
      try {
        stem = stemStream(copy.path, regions);
      } catch (error) {
        await copy.release();
        throw error;
      }
      const { stream, size } = stem;
      stream.on('close', () => void copy.release());
      // A client that goes away mid-stem ends the read too (closing the file and letting the copy go).
      res.on('close', () => stream.destroy());
      res.attachment(exportFileName(dub.name, `r${revision.number}.stem.wav`)).type('audio/wav').setHeader('Content-Length', size);
      stream.on('error', (error) => (res.headersSent ? res.destroy(error) : next(error)));
      stream.pipe(res);
      return;
    }
    const file = format === 'cues_csv' ? renderDubCues(input) : format === 'edl' ? renderDubEdl(input) : renderDubFcpxml(input);
    // attachment() sets a type from the file name's extension, so the export's own type goes after it.
    res.attachment(exportFileName(dub.name, file.extension)).type(file.contentType).send(file.body);
  });

  // ---- end of the dubbing workflow block ----

  cueSheetRoutes(router, ctx, dubOf, author);

  // ---- dub takes: render takes of a line, list them, choose one ----

  router.post('/:session_id/dubs/:dub_id/lines/:line_id/takes', async (req, res) => {
    const { dub, line } = await lineOf(req);
    // multipart/form-data: a recording of the line (file, count_in); JSON: takes to synthesize.
    if (req.is('multipart/form-data')) {
      const form = await readMultipart(req, ctx.layout.uploads, { maxFileBytes: ctx.config.maxUploadBytes, maxFieldBytes: 1024 });
      try {
        const file = singleFileOptional(form, 'file');
        if (!file) throw new InvalidInputError([issue(['body', 'file'], 'Field required: the recording', 'missing', null)]);
        const { count_in } = parseInput(RecordedTakeFields, { count_in: singleField(form, 'count_in') }, 'body');
        const take = await dubbing.recordTake(dub, line, file, count_in);
        res
          .status(201)
          .location(`/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.id}/lines/${line.id}/takes`)
          .json({ data: await dubbing.takes.json(dub, [take], baseUrl(req)) });
      } finally {
        form.cleanup();
      }
      return;
    }
    const { wait } = parseInput(TakesQuery, req.query, 'query');
    const { jobId, takes } = await dubbing.takes.request(dub, line, parseInput(TakesRequest, req.body ?? {}, 'body'));
    await dubbing.takes.waitFor(jobId, wait);
    const now = await dubbing.store.takesOfJob(jobId);
    const finished = now.every((t) => t.status === 'ready' || t.status === 'failed');
    res
      .status(finished ? 200 : 202)
      .location(`/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.id}/lines/${line.id}/takes`)
      .json({ data: await dubbing.takes.json(dub, now.length ? now : takes, baseUrl(req)) });
  });

  router.get('/:session_id/dubs/:dub_id/lines/:line_id/takes', async (req, res) => {
    const { dub, line } = await lineOf(req);
    res.json({ data: await dubbing.takes.json(dub, await dubbing.store.takes(dub.id, line.id), baseUrl(req)) });
  });

  router.put('/:session_id/dubs/:dub_id/lines/:line_id/take', async (req, res) => {
    const { dub, line } = await lineOf(req);
    const { take_id } = parseInput(TakeChoice, req.body ?? {}, 'body');
    res.json(await dubbing.takes.choose(dub, line, take_id, author(res), baseUrl(req)));
  });

  // ---- end of the dub takes block ----

  router.get('/:session_id/dubs/:dub_id/revisions', async (req, res) => {
    const dub = await dubOf(req);
    res.json({ data: (await dubbing.store.revisions(dub.id)).map((r) => dubbing.revisionJson(dub, r, baseUrl(req))) });
  });

  router.get('/:session_id/dubs/:dub_id/revisions/:number', async (req, res) => {
    const dub = await dubOf(req);
    res.json(dubbing.revisionJson(dub, await dubbing.requireRevision(dub, String(req.params.number)), baseUrl(req)));
  });

  router.get('/:session_id/dubs/:dub_id/revisions/:number/audio', async (req, res) => {
    const dub = await dubOf(req);
    const revision = await dubbing.requireRevision(dub, String(req.params.number));
    res.json(dubbing.audioAddress(dub, revision.number, baseUrl(req)));
  });

  router.get('/:session_id/dubs/:dub_id/revisions/:number/peaks', async (req, res) => {
    const dub = await dubOf(req);
    const revision = await dubbing.requireRevision(dub, String(req.params.number));
    // A dub from the recording has no revision file until its audio is converted.
    if (dub.status === 'preparing' && dub.source === 'recording') throw new HttpError(409, "The dub's audio is still being converted from the recording; its peaks follow once it is ready.");
    const cache = dubKeys.peaks(dub.sessionId, dub.id, revision.number);
    let peaks: Peaks | null = null;
    try {
      const stored = await dubbing.files.blobs.get(cache);
      if (stored) peaks = JSON.parse(stored.toString('utf8')) as Peaks;
    } catch {
      peaks = null; // not whole JSON (written by an older version): computed again
    }
    if (!peaks) {
      peaks = await dubbing.files.withLocal(dubbing.revisionKey(dub, revision), (file) => computePeaks(file, ctx.tools));
      if (await dubbing.store.dubById(dub.id)) await dubbing.files.blobs.put(cache, JSON.stringify(peaks));
    }
    res.json(peaks);
  });

  // A revision as stems: one zip of the mix, the background and one WAV per speaker, streamed as it is made.
  router.get('/:session_id/dubs/:dub_id/revisions/:number/stems', async (req, res, next) => {
    const dub = await dubOf(req);
    const revision = await dubbing.requireRevision(dub, String(req.params.number));
    const stems = await revisionStems(dubbing.files, dubbing.store, dub, revision, await ctx.speakerNames(dub.sessionId));
    const { stream } = stems;
    stream.on('close', () => void stems.release());
    res.on('close', () => stream.destroy());
    res.attachment(exportFileName(`${dub.name.replace(/\.[^.]*$/, '')}-r${revision.number}`, 'stems.zip')).type('application/zip').setHeader('Content-Length', stems.size);
    stream.on('error', (error) => (res.headersSent ? res.destroy(error) : next(error)));
    stream.pipe(res);
  });

  router.post('/:session_id/dubs/:dub_id/revisions/:number/restore', async (req, res) => {
    const dub = await dubOf(req);
    res.json(await dubbing.toJson(await dubbing.restore(dub, await dubbing.requireRevision(dub, String(req.params.number)))));
  });

  router.post('/:session_id/dubs/:dub_id/revoice', async (req, res) => {
    const dub = await dubOf(req);
    const { wait } = parseInput(RevoiceQuery, req.query, 'query');
    const revoice = await dubbing.startRevoice(dub);
    if (!revoice) {
      res.json(await dubbing.noOpJson(dub, baseUrl(req)));
      return;
    }
    await dubbing.waitFor(revoice, wait);
    const latest = await dubbing.store.revoice(revoice.id);
    const current = await dubbing.store.dubById(dub.id);
    if (!latest || !current) throw new HttpError(404, 'The dub was deleted.');
    const finished = latest.status === 'complete' || latest.status === 'failed';
    res
      .status(finished ? 200 : 202)
      .location(`/v1/speech/transcriptions/${dub.sessionId}/dubs/${dub.id}/revoices/${revoice.id}`)
      .json(await dubbing.revoiceJson(current, latest, baseUrl(req)));
  });

  router.get('/:session_id/dubs/:dub_id/revoices', async (req, res) => {
    const dub = await dubOf(req);
    const revoices = await dubbing.store.revoices(dub.id);
    res.json({ data: await Promise.all(revoices.map((r) => dubbing.revoiceJson(dub, r, baseUrl(req)))) });
  });

  router.get('/:session_id/dubs/:dub_id/revoices/:revoice_id', async (req, res) => {
    const dub = await dubOf(req);
    res.json(await dubbing.revoiceJson(dub, await dubbing.requireRevoice(dub, String(req.params.revoice_id)), baseUrl(req)));
  });

  router.use(inputIn('body'));
  return router;
}

/** A revision's WAV at its signed address: no key, the signature is the credential. HEAD and Range come from sendFile. */
export function signedDubAudioRouter(ctx: ServiceContext): Router {
  const router = Router();
  router.get('/:session_id/dubs/:dub_id/revisions/:number/file', async (req, res, next) => {
    const refused = new HttpError(403, 'This audio address is invalid or has expired; ask the API for a new one.');
    const parsed = DubPath.extend({ number: z.string().regex(/^\d{1,9}$/) }).safeParse(req.params);
    if (!parsed.success) throw refused;
    const { session_id, dub_id, number } = parsed.data;
    if (!verifyResourceSignature(ctx.audioSecret, revisionResource(dub_id, Number(number)), req.query.expires, req.query.signature)) throw refused;
    const dub = await ctx.dubbing.store.dub(session_id, dub_id);
    const revision = dub ? await ctx.dubbing.store.revision(dub.id, Number(number)) : null;
    if (!dub || !revision) throw refused;
    res.setHeader('Content-Type', 'audio/wav');
    res.setHeader('Cache-Control', 'private, max-age=3600');
    if (req.query.download === '1') res.attachment(`${dub.name.replace(/\.[^.]*$/, '')}-r${revision.number}.wav`);
    await sendStored(ctx, req, res, next, ctx.dubbing.revisionKey(dub, revision), 'The revision file is missing.');
  });
  // ---- dub takes: a take's audio at its signed address ----
  router.get('/:session_id/dubs/:dub_id/takes/:take_id/file', async (req, res, next) => {
    const refused = new HttpError(403, 'This audio address is invalid or has expired; ask the API for a new one.');
    const parsed = DubPath.extend({ take_id: z.uuid() }).safeParse(req.params);
    if (!parsed.success) throw refused;
    const { session_id, dub_id, take_id } = parsed.data;
    if (!verifyResourceSignature(ctx.audioSecret, takeResource(dub_id, take_id), req.query.expires, req.query.signature)) throw refused;
    const dub = await ctx.dubbing.store.dub(session_id, dub_id);
    const take = dub ? await ctx.dubbing.store.take(dub.id, take_id) : null;
    if (!dub || !take || take.status !== 'ready') throw refused;
    res.setHeader('Content-Type', 'audio/wav');
    res.setHeader('Cache-Control', 'private, max-age=3600');
    if (req.query.download === '1') res.attachment(`${dub.name.replace(/\.[^.]*$/, '')}-line${take.lineId}-take${take.number}.wav`);
    await sendStored(ctx, req, res, next, dubKeys.take(dub.sessionId, dub.id, `${take.id}.wav`), 'The take file is missing.');
  });
  // ---- end of the dub takes block ----
  return router;
}

/**
 * A dub's stored file at its signed address, with HEAD, Range, ETag and 304s: sent as a file from a folder store,
 * streamed from the store otherwise (S3), the same way as a recording's original.
 */
async function sendStored(ctx: ServiceContext, req: Request, res: Response, next: NextFunction, key: string, missing: string): Promise<void> {
  const servable = ctx.dubbing.files.servable(key);
  if (servable) {
    res.sendFile(servable.key, { root: servable.root, dotfiles: 'deny', acceptRanges: true }, (error) => {
      const failure = error && !res.headersSent ? sendFileFailure(error, missing) : null;
      if (!failure) return;
      clearFileHeaders(res);
      next(failure);
    });
    return;
  }
  try {
    // Inside: a store that does not answer is a JSON error too, not one labelled as audio.
    const info = await ctx.dubbing.files.blobs.stat(key);
    if (!info) throw new HttpError(404, missing, { code: 'file_missing' });
    await sendBlob(req, res, info, (range) => ctx.dubbing.files.blobs.read(key, range), missing);
  } catch (error) {
    if (res.headersSent) throw error;
    clearFileHeaders(res);
    throw error;
  }
}
