import type { Delivery, DeliveryFlag, DeliveryLabel } from '../../../shared/schemas/analysis';
import type { Dimensions } from './dimensions';

/**
 * The delivery score, grade and flags of a line, and its take quality (README "Delivery score"). The score
 * starts at BASE_SCORE for an even line and moves with engagement and confidence; each label costs its
 * penalty; an emphatic line gains a little.
 */
export const BASE_SCORE = 0.55;
export const PENALTY: Readonly<Record<DeliveryLabel, number>> = {
  rushed: 0.12,
  slow: 0.05,
  flat: 0.12,
  emphatic: -0.05,
  hesitant: 0.15,
  mumbled: 0.2,
  trailing_off: 0.1,
  quiet: 0.05,
};
export const GREAT_SCORE = 0.72;
export const WEAK_SCORE = 0.45;
/** A pause this long inside a line is flagged whatever the labels. */
export const LONG_PAUSE = 1.5;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const r2 = (x: number) => Math.round(x * 100) / 100;

export function deliveryScore(d: Pick<Dimensions, 'engagement' | 'confidence'>, labels: ReadonlyArray<DeliveryLabel>): number {
  const penalty = labels.reduce((s, l) => s + PENALTY[l], 0);
  return r2(clamp01(BASE_SCORE + 0.3 * (d.engagement - 0.5) + 0.25 * (d.confidence - 0.5) - penalty));
}

/** `hesitant` names the line's problem when it is labelled so; otherwise the score decides weak, good or great. */
export function deliveryGrade(score: number, labels: ReadonlyArray<DeliveryLabel>): Delivery['label'] {
  if (labels.includes('hesitant')) return 'hesitant';
  if (score < WEAK_SCORE) return 'weak';
  return score >= GREAT_SCORE ? 'great' : 'good';
}

export function deliveryFlags(labels: ReadonlyArray<DeliveryLabel>, longestPause: number, restarts: number): DeliveryFlag[] {
  return [
    ...labels.map((type) => ({ type, source: 'estimate' as const })),
    ...(longestPause >= LONG_PAUSE ? [{ type: 'long_pause', source: 'measured' as const }] : []),
    ...(restarts > 0 ? [{ type: 'restart', source: 'located' as const }] : []),
  ];
}

/** How usable the take is: the geometric mean of delivery and signal quality, so either one being poor sinks it. */
export function takeQuality(delivery: number, quality: number): number {
  return r2(Math.sqrt(clamp01(delivery) * clamp01(quality)));
}
