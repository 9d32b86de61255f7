import { Router, type Request } from 'express';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { parseInput } from '../validation';

const SessionRef = z.object({ session_id: z.uuid() });
const DubRef = SessionRef.extend({ dub_id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, "_" or "-"') });

export const ANALYSIS_VERSION = '0';

/**
 * The analysis document. The analysis stages are not built yet, so a recording is `none` (never
 * analysed), or `unavailable` once its transcript shows it has no speech; the speaker map and the project
 * with its known speakers are real. Analysis jobs will fill the rest through the job runner.
 */
export function intelligenceRouter(ctx: ServiceContext): Router {
  const router = Router();
  const sessionOr404 = (req: Request) => {
    const { session_id } = parseInput(SessionRef, req.params, 'path');
    const summary = ctx.sessions.summary(session_id);
    if (!summary) throw new HttpError(404, 'Transcription session not found.');
    return summary;
  };

  router.get('/:session_id/intelligence', (req, res) => {
    const summary = sessionOr404(req);
    const transcript = summary.status === 'complete' ? ctx.sessions.transcript(summary.id) : null;
    const status = transcript && transcript.segments.length === 0 ? 'unavailable' : 'none';
    res.json({
      id: summary.id,
      intelligence: {
        status,
        stage: status,
        progress: 0,
        version: ANALYSIS_VERSION,
        duration: summary.duration,
        segments: [],
        events: [],
        speakers: {},
        moments: [],
        recovered: [],
        music: [],
        ambience_profile: [],
        baselines: {},
        coverage: { segments: transcript?.segments.length ?? 0, listened: 0 },
        conditions: [],
      },
      speaker_map: ctx.speakerMap(summary.id),
      project: { ...summary.project, speakers: ctx.projects.speakers(summary.project.id) },
    });
  });

  router.post('/:session_id/dubs/:dub_id/revoice', (req) => {
    parseInput(DubRef, req.params, 'path');
    sessionOr404(req);
    // Dubs cannot be created yet, so no dub id exists.
    throw new HttpError(404, 'Dub not found.');
  });
  return router;
}
