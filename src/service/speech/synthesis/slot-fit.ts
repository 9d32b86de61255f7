/**
 * How a new reading goes into a dub line's slot. Its speed is changed (pitch kept) by at most the limits
 * below to fill the slot; a reading still too long borrows the silence after the line, up to a margin
 * before the next line; one that still does not fit is flagged `does_not_fit` and cut at the slot end
 * (the closest fit that leaves the next line alone).
 */
export interface FitLimits {
  /** Shortest duration factor: 0.8 speeds a reading up by 25 % at most. */
  shortest: number;
  /** Longest duration factor: 1.15 slows a reading down by 13 % at most. */
  longest: number;
  /** Silence kept before the next line when borrowing, in seconds. */
  borrowMargin: number;
}

export const DEFAULT_FIT_LIMITS: FitLimits = { shortest: 0.8, longest: 1.15, borrowMargin: 0.1 };

export type FitFlag = 'stretched' | 'borrowed_silence' | 'does_not_fit';

export interface SlotFit {
  /** Duration factor of the time-stretch (1: unchanged). */
  stretch: number;
  /** Where the reading may sound: the line, or more when silence was borrowed. */
  slot: { start: number; end: number };
  /** Seconds of the (stretched) reading that do not fit and are cut. */
  overflow: number;
  flags: FitFlag[];
}

/**
 * `speed`, when given (the line's own speaking rate, e.g. 1.1 for 10 % faster), replaces the stretch that
 * fills the slot: the reading is stretched by exactly 1 / speed, then borrows or is cut like any other.
 */
export function fitToSlot(
  readingSeconds: number,
  line: { start: number; end: number },
  nextStart: number,
  limits: FitLimits = DEFAULT_FIT_LIMITS,
  speed: number | null = null,
): SlotFit {
  const length = line.end - line.start;
  const wanted = readingSeconds > 0 ? length / readingSeconds : 1;
  const stretch = speed !== null ? 1 / speed : Math.min(limits.longest, Math.max(limits.shortest, wanted));
  const flags: FitFlag[] = Math.abs(stretch - 1) > 0.005 ? ['stretched'] : [];
  const stretched = readingSeconds * stretch;
  if (stretched <= length + 1e-9) return { stretch, slot: { start: line.start, end: line.end }, overflow: 0, flags };
  const limit = Math.max(line.end, nextStart - limits.borrowMargin);
  if (line.start + stretched <= limit) {
    return { stretch, slot: { start: line.start, end: line.start + stretched }, overflow: 0, flags: [...flags, 'borrowed_silence'] };
  }
  if (limit > line.end) flags.push('borrowed_silence');
  return { stretch, slot: { start: line.start, end: limit }, overflow: line.start + stretched - limit, flags: [...flags, 'does_not_fit'] };
}

/** Crossfade lengths outside the slot: `fade` seconds, less where a neighbour is closer, never under `minFade`. */
export function outerFades(
  slot: { start: number; end: number },
  previousEnd: number,
  nextStart: number,
  duration: number,
  fade = 0.02,
  minFade = 0.01,
): { before: number; after: number } {
  const clamp = (room: number) => Math.min(fade, Math.max(minFade, room));
  return {
    before: Math.min(slot.start, clamp(slot.start - previousEnd)),
    after: Math.min(Math.max(0, duration - slot.end), clamp(nextStart - slot.end)),
  };
}
