import { Router } from 'express';
import type { ServiceContext } from '../../context';
import { HttpError } from '../errors';
import { openAiTranscriptionsHandler } from './openai-transcriptions';

// Models have no creation time of their own; OpenAI's list shape requires one, so use a fixed epoch.
const MODEL_CREATED = 1_767_225_600;

export function audioRouter(ctx: ServiceContext): Router {
  const router = Router();
  router.get('/models', async (_req, res) => {
    res.json({ data: (await ctx.models.refresh()).list() });
  });
  router.post('/transcriptions', openAiTranscriptionsHandler(ctx));
  return router;
}

/** OpenAI's `GET /v1/models` shape, so SDKs can list and retrieve models (aliases included). */
export function modelsRouter(ctx: ServiceContext): Router {
  const router = Router();
  const entries = async () =>
    (await ctx.models.refresh()).list().flatMap((m) => [m.id, ...m.aliases].map((id) => ({ id, object: 'model' as const, created: MODEL_CREATED, owned_by: 'takeline' })));
  router.get('/', async (_req, res) => {
    res.json({ object: 'list', data: await entries() });
  });
  router.get('/:model', async (req, res) => {
    const entry = (await entries()).find((e) => e.id === req.params.model);
    if (!entry) throw new HttpError(404, `The model "${req.params.model}" does not exist or is not installed.`, { code: 'model_not_found', param: 'model' });
    res.json(entry);
  });
  return router;
}
