import { Router, type Request } from 'express';
import { z } from 'zod';
import { ProjectTranscriptReplace, RevisionRestore, ScriptAlign, SegmentSplit, SpeakerMerge, SpeakerReassign, TranscriptReplace, TranscriptTextEdit } from '../../../shared/schemas';
import type { ServiceContext } from '../../context';
import { publicTranscript } from '../../speech/public-transcript';
import type { RevisionRecord } from '../../transcription/transcript-edits';
import { HttpError } from '../errors';
import { InvalidInputError, issue } from '../../errors';
import { parseInput } from '../../validation';
import { inputIn } from '../input-location';
import { SpeakerMatchReject } from '../../../shared/schemas/editor';
import { alignScript } from '../../transcription/script-align-work';
import { replaceAcrossProject } from '../../transcription/project-replace';

const SessionRef = z.object({ session_id: z.uuid() });
const RevisionRef = SessionRef.extend({ revision: z.coerce.number().int().min(0) });

/**
 * Speaker fixes by hand and the transcript's revisions:
 * `/v1/speech/transcriptions/{id}/transcript/{reassign,merge,split,revisions}`.
 */
export function transcriptEditsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const sessionId = async (req: Request) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    return (await ctx.recordings.require(session_id)).id;
  };
  const result = async (id: string, revision: RevisionRecord | Promise<RevisionRecord>) => ({
    revision: await revision,
    session: await ctx.recordings.session(id),
  });

  router.post('/:session_id/transcript/reassign', async (req, res) => {
    const id = await sessionId(req);
    const body = parseInput(SpeakerReassign, req.body ?? {}, 'body');
    if ((body.speaker === undefined) === (body.speaker_id === undefined)) {
      throw new InvalidInputError([issue(['body', 'speaker'], 'Give exactly one of speaker (a label or "new") and speaker_id', 'value_error', body.speaker ?? null)]);
    }
    const to = body.speaker !== undefined ? { speaker: body.speaker } : { speakerId: body.speaker_id! };
    const revision = await ctx.transcriptEdits.reassign(id, { segmentId: body.segment_id, wordStart: body.word_start, wordEnd: body.word_end, to, baseRevision: body.base_revision });
    res.json(await result(id, revision));
  });

  router.post('/:session_id/transcript/merge', async (req, res) => {
    const id = await sessionId(req);
    const body = parseInput(SpeakerMerge, req.body ?? {}, 'body');
    res.json(await result(id, ctx.transcriptEdits.merge(id, { from: body.from, into: body.into, baseRevision: body.base_revision })));
  });

  router.post('/:session_id/transcript/split', async (req, res) => {
    const id = await sessionId(req);
    const body = parseInput(SegmentSplit, req.body ?? {}, 'body');
    res.json(await result(id, ctx.transcriptEdits.split(id, { segmentId: body.segment_id, wordIndex: body.word_index, baseRevision: body.base_revision })));
  });

  router.get('/:session_id/transcript/revisions', async (req, res) => {
    res.json(await ctx.transcriptEdits.revisions(await sessionId(req)));
  });

  router.get('/:session_id/transcript/revisions/:revision', async (req, res) => {
    const { session_id, revision } = parseInput(RevisionRef, req.params, 'path');
    await ctx.recordings.require(session_id);
    const found = await ctx.transcriptEdits.revision(session_id, revision);
    res.json({ ...found.record, transcript: publicTranscript(found.transcript) });
  });

  router.post('/:session_id/transcript/revisions/:revision/restore', async (req, res) => {
    const { session_id, revision } = parseInput(RevisionRef, req.params, 'path');
    await ctx.recordings.require(session_id);
    const body = parseInput(RevisionRestore, req.body ?? {}, 'body');
    res.json(await result(session_id, ctx.transcriptEdits.restore(session_id, revision, body.base_revision)));
  });

  // ---- editor's basics: "not this person" ----
  const LabelRef = SessionRef.extend({ label: z.string().min(1).max(32) });
  router.post('/:session_id/speakers/:label/reject-match', async (req, res) => {
    const { session_id, label } = parseInput(LabelRef, req.params, 'path');
    await ctx.recordings.require(session_id);
    const body = parseInput(SpeakerMatchReject, req.body ?? {}, 'body');
    const before = (await ctx.speakerMap(session_id))[label];
    await ctx.transcriptEdits.rejectSpeakerMatch(session_id, label, body.speaker_id);
    res.json({ label, rejected_speaker_id: before!.speaker_id, speaker_map: await ctx.speakerMap(session_id) });
  });
  // ---- end of the editor's basics block ----

  // ---- Word corrections
  const SegmentRef = SessionRef.extend({ segment_id: z.coerce.number().int().min(0) });

  router.patch('/:session_id/transcript/segments/:segment_id', async (req, res) => {
    const id = await sessionId(req);
    const { segment_id } = parseInput(SegmentRef, req.params, 'path');
    const body = parseInput(TranscriptTextEdit, req.body ?? {}, 'body');
    const revision = await ctx.transcriptEdits.editText(id, {
      segmentId: segment_id,
      text: body.text,
      wordStart: body.word_start,
      wordEnd: body.word_end,
      baseRevision: body.base_revision,
    });
    res.json(await result(id, revision));
  });

  router.post('/:session_id/transcript/replace', async (req, res) => {
    const id = await sessionId(req);
    const body = parseInput(TranscriptReplace, req.body ?? {}, 'body');
    const outcome = await ctx.transcriptEdits.replace(id, {
      find: body.find,
      replace: body.replace,
      matchCase: body.match_case,
      wholeWords: body.whole_words,
      preview: body.preview,
      baseRevision: body.base_revision,
    });
    const preview = body.preview ?? false;
    res.json({ preview, ...outcome, ...(preview ? {} : { session: await ctx.recordings.session(id) }) });
  });

  // --- Script alignment: POST …/transcript/align ---
  router.post('/:session_id/transcript/align', async (req, res) => {
    const id = await sessionId(req);
    const body = parseInput(ScriptAlign, req.body ?? {}, 'body');
    // A client that goes away stops the alignment, wherever it runs (nothing is stored).
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // A job the desktop's in-process worker starts at once, or a team's worker runs (script-align-work.ts).
    const done = await alignScript({ jobs: ctx.jobs, jobRecords: ctx.database.jobs, alignment: ctx.scriptAlignment }, id, { text: body.text, base_revision: body.base_revision }, abort.signal);
    res.json({ ...(await result(id, done.revision)), alignment: done.alignment });
  });

  router.use(inputIn('body'));
  return router;
}

/** Find and replace across a project's recordings: `/v1/speech/projects/{project}/transcripts/replace`. */
export function projectTranscriptEditsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const ProjectRef = z.object({ project: z.string().min(1).max(64) });

  router.post('/:project/transcripts/replace', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    const project = await ctx.projects.find(ref);
    if (!project) throw new HttpError(404, 'Project not found.');
    const body = parseInput(ProjectTranscriptReplace, req.body ?? {}, 'body');
    // A client that goes away stops the replacements not yet stored, wherever they run.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // Here on the desktop; on a team's API node, workers align the changed lines (project-replace.ts).
    const recordings = await replaceAcrossProject(
      { jobs: ctx.jobs, editor: ctx.transcriptEdits },
      project.id,
      { find: body.find, replace: body.replace, matchCase: body.match_case, wholeWords: body.whole_words, preview: body.preview },
      abort.signal,
    );
    res.json({ preview: body.preview ?? false, count: recordings.reduce((n, r) => n + r.count, 0), recordings });
  });

  router.use(inputIn('body'));
  return router;
}
