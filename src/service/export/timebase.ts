/**
 * The timecode clock an export uses: the recording's own (media) or, when none is set, 25 fps non-drop
 * from 00:00:00:00 — which editor exports must then say, so nobody conforms against a guessed clock.
 */
import { type FrameRate, type TimecodeClock, startFrames } from '../../shared/timecode';
import type { ExportMedia } from './types';

export interface ExportTimebase {
  clock: TimecodeClock & { frameRate: FrameRate; startTimecode: string };
  /** True when the recording has no timebase and the 25 fps default is used. */
  assumed: boolean;
  /** Frame count of the start label. */
  startFrames: number;
  /** e.g. "29.97 fps drop frame, starting at 00:58:59;28". */
  description: string;
}

export const DEFAULT_FRAME_RATE: FrameRate = '25';

export function resolveTimebase(media: ExportMedia | null): ExportTimebase {
  if (!media) {
    const clock = { frameRate: DEFAULT_FRAME_RATE, dropFrame: false, startTimecode: '00:00:00:00' };
    return {
      clock,
      assumed: true,
      startFrames: 0,
      description:
        'no timebase is set for this recording, so timecode assumes 25 fps non-drop frame starting at 00:00:00:00',
    };
  }
  const dropFrame = media.drop_frame;
  const startTimecode = media.start_timecode ?? (dropFrame ? '00:00:00;00' : '00:00:00:00');
  const clock = { frameRate: media.frame_rate, dropFrame, startTimecode };
  return {
    clock,
    assumed: false,
    // Throws a RangeError naming the problem if the stored start label is invalid for the rate.
    startFrames: startFrames(clock),
    description: `${media.frame_rate} fps ${dropFrame ? 'drop frame' : 'non-drop frame'}, starting at ${startTimecode}`,
  };
}
