import { Router } from 'express';
import { z } from 'zod';
import { WhisperDownloadCancel, WhisperModelName } from '../../../shared/schemas';
import type { WhisperModelManager } from '../../models/whisper/model-manager';
import { parseInput } from '../../validation';

const NameParam = z.object({ name: WhisperModelName });

/** `/v1/speech/models/whisper`: the Whisper model catalogue, downloads, verification and removal. */
export function whisperModelsRouter(manager: WhisperModelManager): Router {
  const router = Router();
  const nameOf = (params: unknown) => parseInput(NameParam, params, 'path').name;

  router.get('/', (_req, res) => {
    res.json(manager.list());
  });

  router.get('/:name', (req, res) => {
    res.json(manager.model(nameOf(req.params)));
  });

  // 202 once the server answered and the space suffices; poll GET /:name for progress.
  router.post('/:name/download', async (req, res) => {
    const { model, started } = await manager.download(nameOf(req.params));
    res.status(started ? 202 : 200).location(`/v1/speech/models/whisper/${model.name}`).json(model);
  });

  router.delete('/:name/download', async (req, res) => {
    const name = nameOf(req.params);
    const { discard } = parseInput(WhisperDownloadCancel, req.query, 'query');
    res.json(await manager.cancel(name, discard));
  });

  router.post('/:name/verify', async (req, res) => {
    res.json(await manager.verify(nameOf(req.params)));
  });

  router.delete('/:name', async (req, res) => {
    await manager.remove(nameOf(req.params));
    res.status(204).end();
  });

  return router;
}
