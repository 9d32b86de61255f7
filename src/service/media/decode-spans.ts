import { SAMPLE_RATE, type Span } from '../speech/types';
import { decodeAudio } from './decode';
import type { MediaTools } from './tools';

/**
 * The audio of a few stretches of a recording (16 kHz mono), decoded in one pass that stops after the last
 * one ends, so correcting a line near the start of an hour-long file does not decode the hour, and only the
 * stretches are kept in memory. A stretch past the end comes back shorter (or empty).
 */
export async function decodeSpans(path: string, tools: MediaTools, spans: readonly Span[], signal?: AbortSignal): Promise<Float32Array[]> {
  const ranges = spans.map((s) => ({ from: Math.max(0, Math.floor(s.start * SAMPLE_RATE)), to: Math.max(0, Math.ceil(s.end * SAMPLE_RATE)) }));
  const out = ranges.map((r) => new Float32Array(Math.max(0, r.to - r.from)));
  const filled = ranges.map(() => 0);
  const last = Math.max(0, ...ranges.map((r) => r.to));
  let at = 0;
  for await (const block of decodeAudio(path, tools, { signal })) {
    const end = at + block.length;
    ranges.forEach((r, k) => {
      const a = Math.max(r.from, at);
      const b = Math.min(r.to, end);
      if (b > a) {
        out[k]!.set(block.subarray(a - at, b - at), a - r.from);
        filled[k] = Math.max(filled[k]!, b - r.from);
      }
    });
    at = end;
    if (at >= last) break;
  }
  return out.map((pcm, k) => (filled[k]! < pcm.length ? pcm.slice(0, filled[k]) : pcm));
}
