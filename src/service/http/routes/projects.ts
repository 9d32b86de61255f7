import { Router } from 'express';
import { z } from 'zod';
import { ProjectCreate, ProjectSpeakerUpdate, ProjectVocabulary, uniqueTerms } from '../../../shared/schemas';
import type { Projects } from '../../projects/projects';
import { parseInput } from '../../validation';
import { accessOf } from '../authenticate';
import { requireUnlimited } from '../scope';
import { visibleProjectIds } from '../../auth/access';

const ProjectRef = z.object({ project: z.string().min(1).max(64) });
const SpeakerRef = ProjectRef.extend({ speaker_id: z.uuid() });

export function projectsRouter(projects: Projects): Router {
  const router = Router();

  router.post('/', requireUnlimited('create projects'), async (req, res) => {
    const body = parseInput(ProjectCreate, req.body, 'body');
    res.status(201).location(`/v1/speech/projects/${body.key}`).json(await projects.create(body.key, body.name));
  });

  router.get('/', async (_req, res) => {
    res.json({ data: await projects.list(visibleProjectIds(accessOf(res))) });
  });

  router.get('/:project', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    res.json(await projects.detail(await projects.require(ref)));
  });

  // Names and terms every transcription in the project expects (see docs/transcription.md, "Custom vocabulary").
  router.get('/:project/vocabulary', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    res.json({ terms: await projects.vocabulary(await projects.require(ref)) });
  });

  router.put('/:project/vocabulary', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    const body = parseInput(ProjectVocabulary, req.body, 'body');
    const project = await projects.require(ref);
    res.json({ terms: await projects.setVocabulary(project, uniqueTerms(body.terms)) });
  });

  router.patch('/:project/speakers/:speaker_id', async (req, res) => {
    const params = parseInput(SpeakerRef, req.params, 'path');
    const body = parseInput(ProjectSpeakerUpdate, req.body, 'body');
    const project = await projects.require(params.project);
    res.json(await projects.renameSpeaker(project, params.speaker_id, body.name));
  });

  return router;
}
