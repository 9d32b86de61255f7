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
    adaptation: z
      .object({
        recordings: z.number().int().meta({ description: 'Recordings whose speech the transform is estimated from' }),
        seconds: z.number().meta({ description: 'Seconds of aligned speech behind it' }),
        // Corrections teach the recognizer.
        corrected_seconds: z.number().meta({
          description:
            'Of `seconds`, those of lines an editor corrected or aligned a script to: the transform learnt them along the corrected words (docs/transcription.md, "Corrections teach the recognizer")',
        }),
        map_means: z.boolean().meta({
          description:
            "True when the voice's acoustic means were also re-estimated (MAP) from its corrected speech, over the transform, and decoders load those; false below the corrected-speech minimum or with TAKELINE_ADAPTATION_MAP=off",
        }),
        updated_at: Timestamp,
      })
      .nullable()
      .optional()
      .meta({
        description:
          "The speaker's acoustic adaptation (MLLR) learnt from the project's earlier recordings; later recordings decode this voice with it. Null until there is enough speech (docs/transcription.md, \"Speaker adaptation\")",
      }),
  })
  .meta({ id: 'ProjectSpeaker' });

export const ProjectDetail = Project.extend({ speakers: z.array(ProjectSpeaker) }).meta({ id: 'ProjectDetail' });

export const ProjectSpeakerUpdate = z
  .strictObject({ name: z.string().trim().min(1).max(200) })
  .meta({ id: 'ProjectSpeakerUpdate' });

/** Most terms a project's vocabulary holds (the recognizer gives its own entries to at most 200 words). */
export const MAX_VOCABULARY_TERMS = 500;

export const VocabularyTerm = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N}'’. -]*$/u, 'must be a word or short phrase: letters, digits, spaces, apostrophes, hyphens and periods, starting with a letter or digit')
  .meta({ description: 'A name, term or short phrase, spelled as it should be written', example: 'Siobhan McAllister' });

export const ProjectVocabulary = z
  .strictObject({
    terms: z
      .array(VocabularyTerm)
      .max(MAX_VOCABULARY_TERMS)
      .meta({ description: `Up to ${MAX_VOCABULARY_TERMS} terms; repeats (ignoring case) are dropped, the first spelling kept` }),
  })
  .meta({ id: 'ProjectVocabulary' });

/** Terms without repeats (ignoring case), first spelling kept, in the order given. */
export function uniqueTerms(terms: readonly string[]): string[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = t.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type Project = z.infer<typeof Project>;
export type ProjectVocabulary = z.infer<typeof ProjectVocabulary>;
export type ProjectDetail = z.infer<typeof ProjectDetail>;
export type ProjectSpeaker = z.infer<typeof ProjectSpeaker>;
