import { Router } from 'express';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { TRANSCRIBE_JOB } from '../../recordings/intake';
import { HttpError } from '../errors';
import { parseInput } from '../../validation';

/** `POST …/{session_id}/retry`: a failed transcription is queued again (its checkpoints are reused). */
export function retryRouter(ctx: ServiceContext): Router {
  const router = Router();
  router.post('/:session_id/retry', async (req, res) => {
    const { session_id } = parseInput(z.object({ session_id: z.uuid() }), req.params, 'path');
    const summary = await ctx.sessions.summary(session_id);
    if (!summary) throw new HttpError(404, 'Transcription session not found.');
    if (summary.status !== 'failed') throw new HttpError(409, `Only a failed transcription can be retried (status: ${summary.status}).`);
    const queued = await ctx.database.transaction(async ({ sessions, jobs }) => {
      const id = await ctx.jobs.retry(TRANSCRIBE_JOB, session_id, jobs);
      if (id) await sessions.setProgress(session_id, 'queued', 0, 'queued');
      return id;
    });
    if (!queued) throw new HttpError(409, 'This transcription is already queued again.');
    res.status(202).location(`/v1/speech/transcriptions/${session_id}`).json(await ctx.sessions.summary(session_id));
  });
  return router;
}
