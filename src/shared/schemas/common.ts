import { z } from 'zod';

/** Identifiers the service assigns. Validated on the way in so path parameters never reach the disk raw. */
export const Uuid = z.uuid().meta({ description: 'Identifier assigned by the service', example: '3f1c2a9e-5b7d-4c1e-9a0b-2d6e8f4a1c3b' });

export const Timestamp = z.string().meta({ description: 'ISO 8601 timestamp with time zone offset', example: '2026-11-21T09:30:00.000Z' });

/** Offset pagination, as FastAPI-style APIs usually expose it. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size, 1–100' }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'Items to skip' }),
});

/** A speaker-count hint for diarization (`min_speakers`, `max_speakers`): whole number 1–32. */
export const SpeakerCount = z.coerce
  .number()
  .int()
  .min(1)
  .max(32)
  .meta({ description: 'Speaker-count hint for diarization, 1–32', example: 2 });
