import { Router, type Request } from 'express';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { publicRun } from '../../analysis/analysis-service';
import { sendConditionalJson } from '../conditional-get';
import { parseInput } from '../../validation';

const SessionRef = z.object({ session_id: z.uuid() });
export const IntelligenceQuery = z.strictObject({
  run_id: z.uuid().optional().meta({ description: 'A particular run (from POST …/intelligence or …/intelligence/runs); default the newest' }),
});

/**
 * The Analysis document (INTERFACE.md endpoint 4), analysis runs on demand, and their history. Runs are
 * queued automatically when a transcript completes; the job fills the document in as it goes.
 */
export function intelligenceRouter(ctx: ServiceContext): Router {
  const router = Router();
  const sessionOf = async (req: Request) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    return ctx.recordings.require(session_id);
  };

  router.get('/:session_id/intelligence', async (req, res) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    const { run_id } = parseInput(IntelligenceQuery, req.query, 'query');
    // The document changes with the session's analysis (its revision in the analysis store) and with the
    // session, its speaker map and its project's speakers (its change counter): both validate the cache and
    // make the ETag.
    const seq = await ctx.recordings.changeSeq(session_id);
    if (seq === null) throw new HttpError(404, 'Transcription session not found.');
    if (run_id !== undefined) await ctx.analysis.assertRun(session_id, run_id);
    const etag = ctx.documents.etag('i', await ctx.analysis.revision(session_id), seq);
    await sendConditionalJson(req, res, etag, () =>
      ctx.documents.bytes(`${session_id}:intelligence:${run_id ?? ''}`, etag, async () => {
        const summary = await sessionOf(req);
        return Buffer.from(
          JSON.stringify({
            id: summary.id,
            intelligence: await ctx.analysis.intelligence(summary.id, run_id),
            speaker_map: await ctx.speakerMap(summary.id),
            project: { ...summary.project, speakers: await ctx.database.speakers.projectSpeakers(summary.project.id) },
          }),
        );
      }),
    );
  });

  router.post('/:session_id/intelligence', async (req, res) => {
    const summary = await sessionOf(req);
    if (summary.status !== 'complete') {
      throw new HttpError(
        409,
        summary.status === 'failed'
          ? 'The recording could not be transcribed, so it cannot be analysed.'
          : `The transcript is not complete yet (status: ${summary.status}); the analysis starts by itself when it completes.`,
      );
    }
    const { run, created } = await ctx.analysis.queue(summary.id, summary.duration);
    res.status(202).setHeader('Location', `/v1/speech/transcriptions/${summary.id}/intelligence?run_id=${run.run_id}`);
    res.json({ ...publicRun(run), created });
  });

  router.get('/:session_id/intelligence/runs', async (req, res) => {
    const summary = await sessionOf(req);
    const data = await ctx.analysis.runs(summary.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data });
  });

  return router;
}
