import { z } from 'zod';

/** One entry of a FastAPI/pydantic-style validation error. */
export const ValidationIssue = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).meta({ example: ['body', 'frame_rate'] }),
    msg: z.string(),
    type: z.string(),
    input: z.unknown(),
    ctx: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ValidationIssue' });

/** Errors under /v1/speech/: 422 carries a list of issues; every other status carries a message. */
export const ValidationError = z.object({ detail: z.array(ValidationIssue) }).meta({ id: 'ValidationError' });
export const DetailError = z.object({ detail: z.string() }).meta({ id: 'DetailError' });

/** Errors under /v1/audio/ and /v1/models: OpenAI's error envelope. */
export const OpenAIError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  })
  .meta({ id: 'OpenAIError' });

export type ValidationIssue = z.infer<typeof ValidationIssue>;
