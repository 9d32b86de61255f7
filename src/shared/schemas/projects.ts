import { z } from 'zod';
import { Timestamp, Uuid } from './common';

export const PROJECT_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const ProjectKey = z
  .string()
  .min(1)
  .max(64)
  .regex(PROJECT_KEY_PATTERN, 'must be 1–64 of lowercase letters, digits, "_" and "-", starting with a letter or digit')
  .meta({ description: 'Caller-chosen project key: 1–64 of [a-z0-9_-], starting with a letter or digit; unique', example: 'ep104-dub' });

export const ProjectName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .meta({ description: 'Display name, 1–200 characters', example: 'Episode 104 (German dub)' });

export const ProjectCreate = z.strictObject({ key: ProjectKey, name: ProjectName }).meta({ id: 'ProjectCreate' });

export const Project = z
  .object({ id: Uuid, key: z.string(), name: z.string(), created_at: Timestamp })
  .meta({ id: 'Project' });

export const ProjectSpeaker = z
  .object({
    id: Uuid,
    number: z.number().int(),
    name: z.string(),
    label: z.string().meta({ description: 'Stable label within the project, e.g. P3' }),
    clip_count: z.number().int(),
    evidence_seconds: z.number(),
  })
  .meta({ id: 'ProjectSpeaker' });

export const ProjectDetail = Project.extend({ speakers: z.array(ProjectSpeaker) }).meta({ id: 'ProjectDetail' });

export const ProjectSpeakerUpdate = z
  .strictObject({ name: z.string().trim().min(1).max(200) })
  .meta({ id: 'ProjectSpeakerUpdate' });

export type Project = z.infer<typeof Project>;
export type ProjectDetail = z.infer<typeof ProjectDetail>;
export type ProjectSpeaker = z.infer<typeof ProjectSpeaker>;
