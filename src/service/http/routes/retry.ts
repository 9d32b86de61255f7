import { Router } from 'express';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';

/** `POST …/{session_id}/retry`: a failed transcription is queued again (its checkpoints are reused). */
export function retryRouter(ctx: Pick<ServiceContext, 'recordings'>): Router {
  const router = Router();
  router.post('/:session_id/retry', async (req, res) => {
    const { session_id } = parseInput(z.object({ session_id: z.uuid() }), req.params, 'path');
    const queued = await ctx.recordings.retry(session_id);
    res.status(202).location(`/v1/speech/transcriptions/${session_id}`).json(queued);
  });
  return router;
}
