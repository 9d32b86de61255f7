import type { Mos } from '../../../shared/schemas/analysis';

/**
 * The MOS scale's bounds. DNSMOS maps its raw outputs through fitted polynomials that can leave the scale
 * (BAK 0.985 on a quiet AMI meeting excerpt); every MOS the service serves, and every OVRL the
 * quality score is built on, is held to 1–5 here, so the documented range is the served one.
 */
export const MOS_MIN = 1;
export const MOS_MAX = 5;

/** A MOS held to the scale (NaN stays NaN: no score is invented). */
export function onMosScale(x: number): number {
  return Math.min(MOS_MAX, Math.max(MOS_MIN, x));
}

const outside = (x: number) => x < MOS_MIN || x > MOS_MAX;

/** Every score of a MOS held to the scale; the same object when all already are. */
export function mosOnScale(mos: Mos): Mos {
  if (!outside(mos.sig) && !outside(mos.bak) && !outside(mos.ovrl) && !outside(mos.p808)) return mos;
  return { ...mos, sig: onMosScale(mos.sig), bak: onMosScale(mos.bak), ovrl: onMosScale(mos.ovrl), p808: onMosScale(mos.p808) };
}
