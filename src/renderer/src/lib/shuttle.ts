/**
 * J/K/L shuttle as editors know it. The state is a signed rate: 0 stopped, >0 forward, <0 reverse.
 * L: stopped or reversing at 1x → forward 1x; reversing faster → halve the reverse speed; forward →
 *    double (up to the maximum).
 * J: the mirror image (reverse/slower): forward faster than 1x → halve; forward 1x or stopped → reverse
 *    1x; reversing → double the reverse speed.
 * K: stop.
 */
export type ShuttleKey = 'j' | 'k' | 'l';

export const MAX_SHUTTLE_RATE = 8;

export function nextShuttleRate(rate: number, key: ShuttleKey): number {
  if (key === 'k') return 0;
  const sign = key === 'l' ? 1 : -1;
  const current = rate * sign; // positive when already moving in the key's direction
  if (current > 0) return sign * Math.min(MAX_SHUTTLE_RATE, current * 2);
  if (current < -1) return (-sign * -current) / 2; // slow the opposite direction down
  return sign;
}

/** Label for the transport readout, e.g. "▶ 2×", "◀ 1×", "■". */
export function shuttleLabel(rate: number): string {
  if (rate === 0) return '■';
  return `${rate > 0 ? '▶' : '◀'} ${Math.abs(rate)}×`;
}
