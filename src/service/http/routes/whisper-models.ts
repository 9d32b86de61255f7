import { Router } from 'express';
import { z } from 'zod';
import { WhisperDownloadCancel, WhisperModelName } from '../../../shared/schemas';
import type { WhisperModelManager } from '../../models/whisper/model-manager';
import { parseInput } from '../../validation';
import { requireUnlimited } from '../scope';

const NameParam = z.object({ name: WhisperModelName });

/** `/v1/speech/models/whisper`: the Whisper model catalogue, downloads, verification and removal. */
export function whisperModelsRouter(manager: WhisperModelManager): Router {
  const router = Router();
  // Models are the machine's, shared by every project: a limited key may list them, not change them.
  const manageModels = requireUnlimited('download, verify or delete speech models');
  const nameOf = (params: unknown) => parseInput(NameParam, params, 'path').name;
  // On a team, every request first reads what the team installed (through any node); a no-op on the desktop.
  router.use(async (_req, _res, next) => {
    await manager.refresh();
    next();
  });

  router.get('/', (_req, res) => {
    res.json(manager.list());
  });

  router.get('/:name', (req, res) => {
    res.json(manager.model(nameOf(req.params)));
  });

  // 202 once the server answered and the space suffices; poll GET /:name for progress.
  router.post('/:name/download', manageModels, async (req, res) => {
    const { model, started } = await manager.download(nameOf(req.params));
    res.status(started ? 202 : 200).location(`/v1/speech/models/whisper/${model.name}`).json(model);
  });

  router.delete('/:name/download', manageModels, async (req, res) => {
    const name = nameOf(req.params);
    const { discard } = parseInput(WhisperDownloadCancel, req.query, 'query');
    res.json(await manager.cancel(name, discard));
  });

  router.post('/:name/verify', manageModels, async (req, res) => {
    res.json(await manager.verify(nameOf(req.params)));
  });

  router.delete('/:name', manageModels, async (req, res) => {
    await manager.remove(nameOf(req.params));
    res.status(204).end();
  });

  return router;
}
