import { z } from 'zod';
import { FRAME_RATES } from '../timecode/rates';

export const FrameRate = z.enum(FRAME_RATES).meta({ description: 'Frames per second, as editors write it' });

export const Media = z
  .object({
    frame_rate: FrameRate,
    drop_frame: z.boolean(),
    start_timecode: z.string().nullable(),
    timecode_source: z.literal('user'),
    tape: z.string(),
  })
  .meta({ id: 'Media' });

/**
 * The PATCH body. Omitted fields keep their stored value; while a session has no timebase yet, frame_rate
 * is required and the rest default (drop_frame false, start_timecode null, tape ""). Cross-field rules
 * (drop frame only at 29.97/59.94, timecode labels that exist) are checked on the merged result.
 */
export const MediaPatch = z
  .strictObject({
    frame_rate: FrameRate.optional(),
    drop_frame: z.boolean().optional(),
    start_timecode: z
      .string()
      .max(12)
      .nullable()
      .optional()
      .meta({ description: 'HH:MM:SS:FF, or HH:MM:SS;FF in drop frame; null when the file has none', example: '01:00:00;00' }),
    tape: z.string().max(32).optional().meta({ description: 'Tape or reel name, at most 32 characters' }),
  })
  .meta({ id: 'MediaPatch' });

export const MediaResponse = z.object({ media: Media }).meta({ id: 'MediaResponse' });

export type Media = z.infer<typeof Media>;
export type MediaPatch = z.infer<typeof MediaPatch>;
export type FrameRate = z.infer<typeof FrameRate>;
