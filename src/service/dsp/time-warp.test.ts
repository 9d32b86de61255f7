import { describe, expect, it } from 'vitest';
import { warpAlongMap } from './time-warp';
import { mapTime, wordTimeMap } from './time-map';

const RATE = 16000;

/** Tone bursts ("words") of `hz` at the given spans, silence between. */
export function bursts(spans: Array<{ start: number; end: number }>, seconds: number, hz = 200): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (const { start, end } of spans) {
    for (let i = Math.round(start * RATE); i < Math.round(end * RATE); i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / RATE);
  }
  return out;
}

/** Onsets: where the 5 ms peak envelope rises above a tenth of the peak after at least 30 ms below it. */
function onsets(x: Float32Array): number[] {
  const hop = Math.round(0.005 * RATE);
  const env: number[] = [];
  for (let i = 0; i + hop <= x.length; i += hop) env.push(Math.max(...Array.from(x.subarray(i, i + hop), Math.abs)));
  const threshold = Math.max(...env) / 10;
  const found: number[] = [];
  let quiet = 6;
  env.forEach((e, k) => {
    if (e < threshold) quiet++;
    else {
      if (quiet >= 6) found.push((k * hop) / RATE);
      quiet = 0;
    }
  });
  return found;
}

/** Frequency from the mean distance between rising zero crossings (a clean tone). */
function frequency(x: Float32Array): number {
  const crossings: number[] = [];
  for (let i = 1; i < x.length; i++) if (x[i - 1]! < 0 && x[i]! >= 0) crossings.push(i);
  return ((crossings.length - 1) * RATE) / (crossings.at(-1)! - crossings[0]!);
}

describe('warpAlongMap', () => {
  const words = [
    { start: 0.1, end: 0.3 },
    { start: 0.45, end: 0.6 },
    { start: 0.8, end: 1.1 },
  ];
  const target = [
    { start: 0.25, end: 0.4 },
    { start: 0.7, end: 1.0 },
    { start: 1.2, end: 1.35 },
  ];

  it('moves each word onto its target word, to the length of the map, pitch kept', () => {
    const input = bursts(words, 1.2);
    const anchors = wordTimeMap(words, target, 1.2);
    const out = warpAlongMap(input, RATE, anchors);
    expect(out.length).toBe(Math.round(mapTime(anchors, 1.2) * RATE));
    const found = onsets(out);
    expect(found).toHaveLength(3);
    found.forEach((t, i) => expect(Math.abs(t - target[i]!.start)).toBeLessThanOrEqual(0.01));
    // Each word's length follows too: the second was doubled, the third squeezed to half.
    expect(Math.abs(onsets(out.slice().reverse()).reverse().map((t) => out.length / RATE - t)[1]! - target[1]!.end)).toBeLessThanOrEqual(0.015);
    // Still 200 Hz in the doubled word.
    expect(frequency(out.subarray(Math.round(0.75 * RATE), Math.round(0.95 * RATE)))).toBeCloseTo(200, 0);
    // Before the first word: the lead, silent.
    expect(Math.max(...Array.from(out.subarray(0, Math.round(0.2 * RATE)), Math.abs))).toBeLessThan(1e-3);
  });

  it('plays a map of equal times unchanged', () => {
    const input = bursts(words, 1.2);
    const out = warpAlongMap(input, RATE, wordTimeMap(words, words, 1.2));
    expect(out.length).toBe(input.length);
    onsets(out).forEach((t, i) => expect(Math.abs(t - words[i]!.start)).toBeLessThanOrEqual(0.006));
  });
});
