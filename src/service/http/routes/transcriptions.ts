import fs from 'node:fs';
import path from 'node:path';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { EditorMarkerCreate, EditorMarkerUpdate, ExportRangeQuery, MediaPatch, PageQuery, ProjectKey, ProjectName, SpeakerCount } from '../../../shared/schemas';
import { HttpError } from '../errors';
import { clearFileHeaders, sendFileFailure } from '../send-file-errors';
import { sendBlob } from '../send-blob';
import { sendConditionalJson } from '../conditional-get';
import { requestOrigin } from '../loopback-guard';
import { readMultipart, singleField, singleFile } from '../multipart';
import { intakeRecording } from '../../recordings/intake';
import { assertSpeakerRange } from '../../transcription/speaker-hints';
import type { TranscribeJobPayload } from '../../transcription/transcribe-job';
import { NotMediaError } from '../../media/probe';
import { signAudio } from '../../auth/signed-url';
import type { ServiceContext } from '../../context';
import { exportFileName, renderExport, type ExportInput } from '../../export';
import { exportInRange, requestedRange } from '../../export/range';
import { writeAudioExport } from '../../export/audio-range';
import crypto from 'node:crypto';
import { EXPORT_FORMATS } from '../../export/types';
import { parseInput } from '../../validation';
import { accessOf } from '../authenticate';
import { uploadProjectKey } from '../scope';
import { visibleProjectIds } from '../../auth/access';
import { inputIn, withInputIn } from '../input-location';

export const AUDIO_URL_TTL_SECONDS = 3600;
/** Exports made from the analysis rather than the transcript alone. */
const ANALYSIS_FORMATS: ReadonlySet<string> = new Set(['selects_edl', 'analysis_csv']);

const SessionRef = z.object({ session_id: z.uuid() });
/** The recording's exports: the text formats, and its audio as WAV; any of them of a part (`start`/`end`). */
export const ExportQuery = ExportRangeQuery.extend({
  format: z.enum([...EXPORT_FORMATS, 'wav']).meta({ description: 'The file to make; see the description' }),
});
const ListQuery = PageQuery.extend({ project: z.string().min(1).max(64).optional() });

export const UploadFields = z.object({
  project_key: ProjectKey,
  project_name: ProjectName.optional(),
  language: z.string().optional(),
  min_speakers: SpeakerCount.optional(),
  max_speakers: SpeakerCount.optional(),
});

export function baseUrl(req: Request): string {
  // The Host header was checked by the loopback guard, which kept the origin it names (https behind a team's TLS).
  return requestOrigin(req.res!);
}

export function transcriptionsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const { recordings } = ctx;
  const recording = (req: Request) => recordings.require(parseInput(SessionRef, req.params, 'path').session_id);

  router.post('/', async (req, res) => {
    const form = await readMultipart(req, ctx.layout.uploads, { maxFileBytes: ctx.config.maxUploadBytes });
    try {
      const fields = parseInput(
        UploadFields,
        {
          project_key: singleField(form, 'project_key'),
          project_name: singleField(form, 'project_name'),
          language: singleField(form, 'language'),
          min_speakers: singleField(form, 'min_speakers'),
          max_speakers: singleField(form, 'max_speakers'),
        },
        'body',
      );
      assertSpeakerRange(fields);
      const file = singleFile(form, 'file');
      // A team's models (and so its languages) may have changed through another node.
      await ctx.models.refresh();
      const language = ctx.languages.resolve(fields.language, ['body', 'language']);
      const hints: TranscribeJobPayload = { min_speakers: fields.min_speakers, max_speakers: fields.max_speakers };
      const jobPayload: Record<string, unknown> = { ...hints };
      const projectKey = await uploadProjectKey(ctx, res, fields.project_key, fields.project_key);
      const session = await intakeRecording(ctx, file, { projectKey, projectName: fields.project_name, language, jobPayload });
      res.status(201).location(`/v1/speech/transcriptions/${session.id}`).json(session);
    } catch (error) {
      if (error instanceof NotMediaError) throw new HttpError(415, error.message, { code: 'unsupported_file' });
      throw error;
    } finally {
      form.cleanup();
    }
  });

  router.get('/', async (req, res) => {
    const query = parseInput(ListQuery, req.query, 'query');
    const page = await recordings.list({ projectKey: query.project, projectIds: visibleProjectIds(accessOf(res)), limit: query.limit, offset: query.offset });
    res.json({ ...page, limit: query.limit, offset: query.offset });
  });

  router.get('/:session_id', async (req, res) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    // Polled often (the studio, scripts waiting for a transcript): the change counter alone says whether
    // the cached document (or the client's copy, by its ETag) is current.
    const seq = await recordings.changeSeq(session_id);
    if (seq === null) throw new HttpError(404, 'Transcription session not found.');
    const etag = ctx.documents.etag('s', seq);
    await sendConditionalJson(req, res, etag, () =>
      ctx.documents.bytes(`${session_id}:session`, etag, () => recordings.document(session_id)),
    );
  });

  router.delete('/:session_id', async (req, res) => {
    const summary = await recording(req);
    await recordings.delete(summary);
    ctx.documents.forget(summary.id);
    res.status(204).end();
  });

  router.patch('/:session_id/media', async (req, res) => {
    const summary = await recording(req);
    const patch = parseInput(MediaPatch, req.body ?? {}, 'body');
    res.json({ media: await recordings.setTimebase(summary, patch) });
  });

  router.get('/:session_id/audio', async (req, res) => {
    const summary = await recording(req);
    const expires = Math.floor(Date.now() / 1000) + AUDIO_URL_TTL_SECONDS;
    const signature = signAudio(ctx.audioSecret, summary.id, expires);
    const url = `${baseUrl(req)}/v1/speech/transcriptions/${summary.id}/audio/original?expires=${expires}&signature=${signature}`;
    res.json({ url, expires_in: AUDIO_URL_TTL_SECONDS });
  });

  router.get('/:session_id/export', async (req, res, next) => {
    const summary = await recording(req);
    const { format, ...rangeQuery } = parseInput(ExportQuery, req.query, 'query');
    // ---- editor's basics: part of the recording, between the studio's in and out points ----
    const range = await withInputIn('query', () => requestedRange(rangeQuery, summary.duration));
    if (format === 'wav') {
      // The audio needs no transcript: it can be exported while the recording is transcribed.
      const target = path.join(ctx.layout.scratch, `export-${crypto.randomUUID()}.wav`);
      const cleanup = () => fs.rm(target, { force: true }, () => undefined);
      try {
        await recordings.withOriginal(summary, (file) => writeAudioExport(ctx.tools, file, target, range));
      } catch (error) {
        cleanup();
        throw error;
      }
      if (!range) await recordings.recordExport(summary, format);
      res.attachment(exportFileName(summary.file_name, 'wav', range)).type('audio/wav');
      res.sendFile(target, { dotfiles: 'allow' }, (error) => {
        cleanup();
        if (error && !res.headersSent) next(error);
      });
      return;
    }
    // ---- end of the editor's basics block ----
    const transcript = await recordings.requireTranscript(summary);
    // Moments mark the editor exports whenever the analysis has them; the analysis formats need it complete.
    const intelligence = await ctx.analysis.intelligence(summary.id);
    if (ANALYSIS_FORMATS.has(format) && intelligence.status !== 'complete') {
      throw new HttpError(
        409,
        `The analysis is not complete (status: ${intelligence.status}${intelligence.error ? `: ${intelligence.error}` : ''}); the ${format} export is made from it.`,
      );
    }
    const input: ExportInput = {
      session: { id: summary.id, fileName: summary.file_name, duration: summary.duration, channels: summary.format.channels ?? undefined, sampleRate: summary.format.sample_rate ?? undefined },
      transcript,
      media: summary.media,
      moments: intelligence.moments,
      lines: intelligence.segments,
      speakerNames: await ctx.speakerNames(summary.id),
      // The editor's own markers, beside the lines and moments.
      markers: (await recordings.markers(summary)).map((m) => ({ start: m.time, end: m.time, label: m.name, kind: 'marker' })),
    };
    const file = renderExport(format, range ? exportInRange(input, range) : input);
    if (!range) await recordings.recordExport(summary, format);
    // attachment() sets a type from the file name's extension (.edl → octet-stream), so the export's own type goes after it.
    res.attachment(exportFileName(summary.file_name, file.extension, range)).type(file.contentType).send(file.body);
  });

  // ---- editor's basics: the editor's own markers, listed in the exports ----
  const MarkerRef = SessionRef.extend({ marker_id: z.uuid() });
  const markerRef = async (req: Request) => {
    const { session_id, marker_id } = parseInput(MarkerRef, req.params, 'path');
    return { summary: await recordings.require(session_id), markerId: marker_id };
  };
  router.get('/:session_id/markers', async (req, res) => {
    res.json({ data: await recordings.markers(await recording(req)) });
  });
  router.post('/:session_id/markers', async (req, res) => {
    const summary = await recording(req);
    const body = parseInput(EditorMarkerCreate, req.body ?? {}, 'body');
    const marker = await recordings.addMarker(summary, body.time, body.name);
    res.status(201).location(`/v1/speech/transcriptions/${summary.id}/markers/${marker.id}`).json(marker);
  });
  router.patch('/:session_id/markers/:marker_id', async (req, res) => {
    const { summary, markerId } = await markerRef(req);
    const body = parseInput(EditorMarkerUpdate, req.body ?? {}, 'body');
    res.json(await recordings.updateMarker(summary, markerId, body));
  });
  router.delete('/:session_id/markers/:marker_id', async (req, res) => {
    const { summary, markerId } = await markerRef(req);
    await recordings.removeMarker(summary, markerId);
    res.status(204).end();
  });
  // ---- end of the editor's basics block ----

  router.get('/:session_id/peaks', async (req, res) => {
    const summary = await recording(req);
    res.json(await ctx.peaks.get(summary.id));
  });

  router.use(inputIn('body'));
  return router;
}

/** The signed original: no key, the signature is the credential. HEAD and Range come from sendFile. */
export function signedAudioRouter(ctx: ServiceContext, verify: (id: string, expires: unknown, signature: unknown) => boolean): Router {
  const router = Router();
  router.get('/:session_id/audio/original', async (req, res, next) => {
    const parsed = SessionRef.safeParse(req.params);
    const refused = new HttpError(403, 'This audio address is invalid or has expired; ask the API for a new one.');
    if (!parsed.success || !verify(parsed.data.session_id, req.query.expires, req.query.signature)) throw refused;
    const original = await ctx.recordings.original(parsed.data.session_id);
    if (!original) throw refused;
    res.setHeader('Content-Type', original.summary.format.content_type);
    res.setHeader('Cache-Control', 'private, max-age=3600');
    const { servable } = original;
    if (!servable) {
      // Not a local file (S3): the range is read from the store itself.
      try {
        // Inside: a store that does not answer (or a missing object) is a JSON error, not one labelled as audio.
        const info = await original.stat();
        if (!info) throw new HttpError(404, 'The recording file is missing.', { code: 'file_missing' });
        await sendBlob(req, res, info, (range) => original.read(range), 'The recording file is missing.');
      } catch (error) {
        if (res.headersSent) throw error;
        clearFileHeaders(res);
        throw error;
      }
      return;
    }
    res.sendFile(servable.key, { root: servable.root, dotfiles: 'deny', acceptRanges: true }, (error) => {
      const failure = error && !res.headersSent ? sendFileFailure(error, 'The recording file is missing.') : null;
      if (!failure) return;
      clearFileHeaders(res);
      next(failure);
    });
  });
  return router;
}
