import { describe, expect, it } from 'vitest';
import type { Span, VoiceActivityDetector } from '../types';
import { openVadStream } from './vadStream';

// Marks every sample > 0.5 as speech, so spans are exact and windows can be checked for joins.
const thresholdVad: VoiceActivityDetector = {
  async detect(pcm, options = {}) {
    const spans: Span[] = [];
    const offset = options.offset ?? 0;
    for (let i = 0; i < pcm.length; i++) {
      if (pcm[i]! <= 0.5) continue;
      const t = offset + i / 16_000;
      const last = spans.at(-1);
      if (last && Math.abs(last.end - t) < 1e-9) last.end = t + 1 / 16_000;
      else spans.push({ start: t, end: t + 1 / 16_000 });
    }
    return spans;
  },
};

describe('openVadStream over a non-streaming detector', () => {
  it('joins speech that crosses a window edge', async () => {
    const pcm = new Float32Array(16_000 * 10);
    pcm.fill(1, 16_000 * 1, 16_000 * 2); // 1–2 s
    pcm.fill(1, 16_000 * 2.5, 16_000 * 4.5); // 2.5–4.5 s crosses the 3 s window edge
    pcm.fill(1, 16_000 * 6, 16_000 * 9); // 6–9 s crosses 6 s... and 9 s edges
    const stream = openVadStream(thresholdVad, { windowSeconds: 3 });
    const spans: Span[] = [];
    for (let i = 0; i < pcm.length; i += 5_000)
      spans.push(...(await stream.push(pcm.subarray(i, i + 5_000))));
    spans.push(...(await stream.finish()));
    expect(spans.map((s) => [+s.start.toFixed(3), +s.end.toFixed(3)])).toEqual([
      [1, 2],
      [2.5, 4.5],
      [6, 9],
    ]);
  });
});
