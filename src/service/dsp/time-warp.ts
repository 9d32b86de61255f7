import { mapTime, targetLength, type TimeAnchor } from './time-map';
import { wsolaAlong, type WsolaOptions } from './wsola';

const DEFAULT_FRAME_SECONDS = 0.025;

/**
 * A mono signal played along a time map (seconds in → seconds out), pitch kept: WSOLA frames are read where
 * the inverse map puts each output frame's centre, so every anchor lands where the map says to within
 * WSOLA's search tolerance. The output is as long as the map's last target; before the first anchor's
 * target it is silence.
 */
export function warpAlongMap(input: Float32Array, sampleRate: number, anchors: readonly TimeAnchor[], options: WsolaOptions = {}): Float32Array {
  if (anchors.length < 2) throw new RangeError('a time map needs at least two anchors');
  const inverse = anchors.map((a) => ({ source: a.target, target: a.source }));
  const half = Math.max(2, Math.round(((options.frameSeconds ?? DEFAULT_FRAME_SECONDS) * sampleRate) / 2));
  const first = anchors[0]!.target;
  const outLength = Math.round(targetLength(anchors) * sampleRate);
  // Before the first anchor the map is not continued backwards: that stretch is silence.
  const sourceAt = (n: number) => {
    const centre = (n + half) / sampleRate;
    return centre < first ? -10 * half : mapTime(inverse, centre) * sampleRate - half;
  };
  return wsolaAlong(input, sampleRate, outLength, sourceAt, options);
}
