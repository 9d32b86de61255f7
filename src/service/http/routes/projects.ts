import { Router } from 'express';
import { z } from 'zod';
import { ProjectCreate, ProjectSpeakerUpdate, ProjectVocabulary, uniqueTerms } from '../../../shared/schemas';
import { HttpError } from '../errors';
import { ProjectKeyTaken, type ProjectStore } from '../../storage/project-store';
import type { SpeakerStore } from '../../storage/speaker-store';
import type { AdaptationSummary } from '../../speakers/speaker-adaptation';
import { parseInput } from '../../validation';
import { accessOf } from '../authenticate';
import { requireUnlimited } from '../scope';
import { visibleProjectIds } from '../../auth/access';

const ProjectRef = z.object({ project: z.string().min(1).max(64) });
const SpeakerRef = ProjectRef.extend({ speaker_id: z.uuid() });

/** How far each of a project's speakers' voices is adapted, by speaker id (absent: no transform); a stub for tests without one. */
export type AdaptationOf = (projectId: string) => Promise<ReadonlyMap<string, AdaptationSummary>>;

export function projectsRouter(projects: ProjectStore, speakers: SpeakerStore, adaptationOf: AdaptationOf = async () => new Map()): Router {
  const router = Router();

  router.post('/', requireUnlimited('create projects'), async (req, res) => {
    const body = parseInput(ProjectCreate, req.body, 'body');
    try {
      res.status(201).location(`/v1/speech/projects/${body.key}`).json(await projects.create(body.key, body.name));
    } catch (error) {
      if (error instanceof ProjectKeyTaken) throw new HttpError(409, `A project with key "${body.key}" already exists.`);
      throw error;
    }
  });

  router.get('/', async (_req, res) => {
    const visible = visibleProjectIds(accessOf(res));
    const all = await projects.list();
    res.json({ data: visible ? all.filter((p) => visible.includes(p.id)) : all });
  });

  const findProject = async (ref: string) => {
    const project = await projects.find(ref);
    if (!project) throw new HttpError(404, 'Project not found.');
    return project;
  };

  router.get('/:project', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    const project = await findProject(ref);
    const adaptation = await adaptationOf(project.id);
    res.json({ ...project, speakers: (await speakers.projectSpeakers(project.id)).map((s) => ({ ...s, adaptation: adaptation.get(s.id) ?? null })) });
  });

  // Names and terms every transcription in the project expects (see docs/transcription.md, "Custom vocabulary").
  router.get('/:project/vocabulary', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    res.json({ terms: await projects.vocabulary((await findProject(ref)).id) });
  });

  router.put('/:project/vocabulary', async (req, res) => {
    const { project: ref } = parseInput(ProjectRef, req.params, 'path');
    const body = parseInput(ProjectVocabulary, req.body, 'body');
    const project = await findProject(ref);
    res.json({ terms: await projects.setVocabulary(project.id, uniqueTerms(body.terms)) });
  });

  router.patch('/:project/speakers/:speaker_id', async (req, res) => {
    const params = parseInput(SpeakerRef, req.params, 'path');
    const body = parseInput(ProjectSpeakerUpdate, req.body, 'body');
    const project = await findProject(params.project);
    const speaker = await speakers.renameProjectSpeaker(project.id, params.speaker_id, body.name);
    if (!speaker) throw new HttpError(404, 'Speaker not found in this project.');
    res.json({ ...speaker, adaptation: (await adaptationOf(project.id)).get(speaker.id) ?? null });
  });

  return router;
}
