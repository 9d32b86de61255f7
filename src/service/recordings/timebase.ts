import type { Media, MediaPatch } from '../../shared/schemas';
import type { ValidationIssue } from '../../shared/schemas';
import { parseTimecode, supportsDropFrame } from '../../shared/timecode';
import { InvalidInputError, issue } from '../errors';

/**
 * Applies a PATCH to a session's timebase. Omitted fields keep their value; the first time, frame_rate is
 * required and the rest default. Cross-field rules are checked on the merged result and reported on the
 * field the caller sent (or the one that conflicts), so a client can show the message beside it.
 */
export function mergeTimebase(current: Media | null, patch: MediaPatch): Media {
  const issues: ValidationIssue[] = [];
  if (!current && patch.frame_rate === undefined) {
    throw new InvalidInputError([issue(['frame_rate'], 'Field required (the recording has no timebase yet)', 'missing', patch)]);
  }
  const merged: Media = {
    frame_rate: patch.frame_rate ?? current!.frame_rate,
    drop_frame: patch.drop_frame ?? current?.drop_frame ?? false,
    start_timecode: patch.start_timecode !== undefined ? patch.start_timecode : (current?.start_timecode ?? null),
    timecode_source: 'user',
    tape: patch.tape ?? current?.tape ?? '',
  };
  if (merged.drop_frame && !supportsDropFrame(merged.frame_rate)) {
    const field = patch.drop_frame !== undefined ? 'drop_frame' : 'frame_rate';
    issues.push(
      issue([field], `drop_frame can be true only at 29.97 or 59.94 fps (frame_rate is ${merged.frame_rate})`, 'drop_frame_rate', patch[field], {
        frame_rate: merged.frame_rate,
        allowed: ['29.97', '59.94'],
      }),
    );
  } else if (merged.start_timecode !== null) {
    const parsed = parseTimecode(merged.start_timecode, { frameRate: merged.frame_rate, dropFrame: merged.drop_frame });
    if (!parsed.ok) {
      issues.push(
        issue(['start_timecode'], `Invalid start_timecode: ${parsed.reason}`, 'timecode_invalid', merged.start_timecode, {
          frame_rate: merged.frame_rate,
          drop_frame: merged.drop_frame,
        }),
      );
    }
  }
  if (issues.length) throw new InvalidInputError(issues);
  return merged;
}
