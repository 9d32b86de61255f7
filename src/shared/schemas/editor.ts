/** The editor's basics: part of a recording to export, and rejecting a speaker match. */
import { z } from 'zod';
import { SpeakerMapEntry } from './sessions';

const seconds = (description: string) => z.coerce.number().min(0).optional().meta({ description });

/** `start`/`end` on `GET …/export`: only that part of the recording (seconds). */
export const ExportRangeQuery = z.object({
  start: seconds('Export only from this time (seconds from the start of the recording; default 0)'),
  end: seconds(
    'Export only up to this time (seconds; default the end of the recording; a time past the end is taken as the end). Must be after `start`.',
  ),
});
export type ExportRangeQuery = z.infer<typeof ExportRangeQuery>;

/** `POST …/speakers/{label}/reject-match`: "not this person". */
export const SpeakerMatchReject = z
  .object({
    speaker_id: z
      .uuid()
      .optional()
      .meta({ description: 'The project speaker the editor saw the voice matched to; if the map changed since, 409 (stale_match)' }),
  })
  .meta({ id: 'SpeakerMatchReject' });

export const SpeakerMatchRejected = z
  .object({
    label: z.string(),
    rejected_speaker_id: z.uuid().meta({ description: 'The project speaker the voice is not (remembered: never matched again)' }),
    speaker_map: z.record(z.string(), SpeakerMapEntry).meta({ description: 'The recording’s speaker map now' }),
  })
  .meta({ id: 'SpeakerMatchRejected' });
export type SpeakerMatchRejected = z.infer<typeof SpeakerMatchRejected>;

// ---- The editor's own markers ----
const MarkerName = z.string().trim().min(1).max(200).meta({ description: 'What the marker says (1–200 characters)' });
const MarkerTime = z.number().min(0).meta({ description: 'Seconds from the start of the recording (at most its length)' });

export const EditorMarker = z
  .object({ id: z.uuid(), time: z.number(), name: z.string(), created_at: z.string() })
  .meta({ id: 'EditorMarker' });
export type EditorMarker = z.infer<typeof EditorMarker>;
export const EditorMarkerList = z.object({ data: z.array(EditorMarker) }).meta({ id: 'EditorMarkerList' });
export const EditorMarkerCreate = z.strictObject({ time: MarkerTime, name: MarkerName }).meta({ id: 'EditorMarkerCreate' });
export const EditorMarkerUpdate = z
  .strictObject({ time: MarkerTime.optional(), name: MarkerName.optional() })
  .meta({ id: 'EditorMarkerUpdate' });
