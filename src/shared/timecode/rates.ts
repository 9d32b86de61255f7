/**
 * The frame rates Takeline knows, as exact rationals. NTSC-family rates are 1000/1001 of their nominal
 * rate; using the rational (not 29.97) keeps frame ↔ seconds conversions exact over long recordings.
 */

export const FRAME_RATES = ['23.976', '24', '25', '29.97', '30', '50', '59.94', '60'] as const;

export type FrameRate = (typeof FRAME_RATES)[number];

/** A rate as frames per second = num / den. */
export interface Rational {
  num: number;
  den: number;
}

const RATIONAL: Record<FrameRate, Rational> = {
  '23.976': { num: 24000, den: 1001 },
  '24': { num: 24, den: 1 },
  '25': { num: 25, den: 1 },
  '29.97': { num: 30000, den: 1001 },
  '30': { num: 30, den: 1 },
  '50': { num: 50, den: 1 },
  '59.94': { num: 60000, den: 1001 },
  '60': { num: 60, den: 1 },
};

export function isFrameRate(value: unknown): value is FrameRate {
  return typeof value === 'string' && (FRAME_RATES as readonly string[]).includes(value);
}

/** Exact frames per second as num/den (29.97 → 30000/1001). */
export function rationalRate(rate: FrameRate): Rational {
  return RATIONAL[rate];
}

/** Seconds per frame as num/den (29.97 → 1001/30000), as FCPXML's frameDuration wants it. */
export function frameDuration(rate: FrameRate): Rational {
  const { num, den } = RATIONAL[rate];
  return { num: den, den: num };
}

/** Frames per second as exact floating point (29.97 → 29.97002997…). */
export function framesPerSecond(rate: FrameRate): number {
  const { num, den } = RATIONAL[rate];
  return num / den;
}

/** The whole-number rate timecode labels count in: frames run 00 … nominal-1 (29.97 → 30). */
export function nominalRate(rate: FrameRate): number {
  const { num, den } = RATIONAL[rate];
  return Math.round(num / den);
}

/** SMPTE drop-frame numbering is defined for 29.97 and 59.94 only (not 23.976). */
export function supportsDropFrame(rate: FrameRate): boolean {
  return rate === '29.97' || rate === '59.94';
}
