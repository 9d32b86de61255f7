import { Router, type Request } from 'express';
import { z } from 'zod';
import { RevisionRestore, SegmentSplit, SpeakerMerge, SpeakerReassign } from '../../../shared/schemas';
import { ScriptAlign } from '../../../shared/schemas';
import { ScriptAlignmentError } from '../../transcription/script-align';
import type { ServiceContext } from '../../context';
import { publicTranscript } from '../../storage/session-store';
import type { RevisionRecord } from '../../storage/revision-store';
import { HttpError, ValidationFailure } from '../errors';
import { issue, parseInput } from '../validation';

const SessionRef = z.object({ session_id: z.uuid() });
const RevisionRef = SessionRef.extend({ revision: z.coerce.number().int().min(0) });

/**
 * Speaker fixes by hand and the transcript's revisions:
 * `/v1/speech/transcriptions/{id}/transcript/{reassign,merge,split,revisions}`.
 */
export function transcriptEditsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const sessionId = (req: Request) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    if (!ctx.sessions.summary(session_id)) throw new HttpError(404, 'Transcription session not found.');
    return session_id;
  };
  const result = (id: string, revision: RevisionRecord) => ({
    revision,
    session: { ...ctx.sessions.get(id)!, speaker_map: ctx.speakerMap(id) },
  });

  router.post('/:session_id/transcript/reassign', (req, res) => {
    const id = sessionId(req);
    const body = parseInput(SpeakerReassign, req.body ?? {}, 'body');
    if ((body.speaker === undefined) === (body.speaker_id === undefined)) {
      throw new ValidationFailure([issue(['body', 'speaker'], 'Give exactly one of speaker (a label or "new") and speaker_id', 'value_error', body.speaker ?? null)]);
    }
    const to = body.speaker !== undefined ? { speaker: body.speaker } : { speakerId: body.speaker_id! };
    const revision = ctx.transcriptEdits.reassign(id, { segmentId: body.segment_id, wordStart: body.word_start, wordEnd: body.word_end, to, baseRevision: body.base_revision });
    res.json(result(id, revision));
  });

  router.post('/:session_id/transcript/merge', (req, res) => {
    const id = sessionId(req);
    const body = parseInput(SpeakerMerge, req.body ?? {}, 'body');
    res.json(result(id, ctx.transcriptEdits.merge(id, { from: body.from, into: body.into, baseRevision: body.base_revision })));
  });

  router.post('/:session_id/transcript/split', (req, res) => {
    const id = sessionId(req);
    const body = parseInput(SegmentSplit, req.body ?? {}, 'body');
    res.json(result(id, ctx.transcriptEdits.split(id, { segmentId: body.segment_id, wordIndex: body.word_index, baseRevision: body.base_revision })));
  });

  router.get('/:session_id/transcript/revisions', (req, res) => {
    res.json(ctx.transcriptEdits.revisions(sessionId(req)));
  });

  router.get('/:session_id/transcript/revisions/:revision', (req, res) => {
    const { session_id, revision } = parseInput(RevisionRef, req.params, 'path');
    if (!ctx.sessions.summary(session_id)) throw new HttpError(404, 'Transcription session not found.');
    const found = ctx.transcriptEdits.revision(session_id, revision);
    res.json({ ...found.record, transcript: publicTranscript(found.transcript) });
  });

  router.post('/:session_id/transcript/revisions/:revision/restore', (req, res) => {
    const { session_id, revision } = parseInput(RevisionRef, req.params, 'path');
    if (!ctx.sessions.summary(session_id)) throw new HttpError(404, 'Transcription session not found.');
    const body = parseInput(RevisionRestore, req.body ?? {}, 'body');
    res.json(result(session_id, ctx.transcriptEdits.restore(session_id, revision, body.base_revision)));
  });

  // --- Script alignment: POST …/transcript/align ---
  router.post('/:session_id/transcript/align', async (req, res) => {
    const id = sessionId(req);
    const body = parseInput(ScriptAlign, req.body ?? {}, 'body');
    // A client that goes away stops the alignment (nothing is stored).
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      const done = await ctx.scriptAlignment.align(id, { text: body.text, baseRevision: body.base_revision }, abort.signal);
      res.json({ ...result(id, done.revision), alignment: done.alignment });
    } catch (error) {
      if (!(error instanceof ScriptAlignmentError)) throw error;
      if (error.kind === 'invalid') throw new ValidationFailure([issue(['body', 'text'], error.message, 'value_error', null)]);
      throw new HttpError(error.kind === 'busy' ? 409 : 503, error.message);
    }
  });

  return router;
}
