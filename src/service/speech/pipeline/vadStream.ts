import type { Span, VoiceActivityDetector } from '../types';
import { SAMPLE_RATE } from '../types';
import type { StreamingVoiceActivityDetector, VadSnapshot, VoiceActivityStream } from '../vad/silero';

/**
 * A streaming VAD as is (going on from `resume` when given), or any VoiceActivityDetector run over fixed
 * windows (for fakes and other engines; these cannot resume, so `resume` must not be given).
 */
export function openVadStream(vad: VoiceActivityDetector, options: { windowSeconds?: number; resume?: VadSnapshot } = {}): VoiceActivityStream {
  const streaming = vad as Partial<StreamingVoiceActivityDetector>;
  if (typeof streaming.stream === 'function') return streaming.stream.call(vad, { resume: options.resume });
  if (options.resume) throw new Error('this voice activity detector cannot resume a stream');
  return new WindowedVadStream(vad, Math.round((options.windowSeconds ?? 30) * SAMPLE_RATE));
}

/**
 * Runs `detect` on consecutive windows and joins spans that meet at a window edge, so speech crossing the
 * edge comes back whole. A span touching the end of a window is held back until the next window shows
 * whether it continues.
 */
class WindowedVadStream implements VoiceActivityStream {
  private readonly window: Float32Array;
  private filled = 0;
  private samples = 0;
  private windowStart = 0;
  private held: Span | null = null;
  private static readonly EDGE = 0.05;

  constructor(
    private readonly vad: VoiceActivityDetector,
    windowSamples: number,
  ) {
    this.window = new Float32Array(windowSamples);
  }

  get position(): number {
    return this.samples / SAMPLE_RATE;
  }

  get settledUntil(): number {
    return this.held ? this.held.start : this.windowStart / SAMPLE_RATE;
  }

  async push(pcm: Float32Array): Promise<Span[]> {
    const out: Span[] = [];
    let i = 0;
    while (i < pcm.length) {
      const take = Math.min(this.window.length - this.filled, pcm.length - i);
      this.window.set(pcm.subarray(i, i + take), this.filled);
      this.filled += take;
      i += take;
      this.samples += take;
      if (this.filled === this.window.length) out.push(...(await this.flush(false)));
    }
    return out;
  }

  async finish(): Promise<Span[]> {
    return this.filled > 0 || this.held ? this.flush(true) : [];
  }

  private async flush(last: boolean): Promise<Span[]> {
    const start = this.windowStart / SAMPLE_RATE;
    const end = (this.windowStart + this.filled) / SAMPLE_RATE;
    const spans = this.filled
      ? await this.vad.detect(this.window.slice(0, this.filled), { offset: start })
      : [];
    this.windowStart += this.filled;
    this.filled = 0;
    const out: Span[] = [];
    for (const span of spans) {
      if (this.held) {
        if (span.start - start <= WindowedVadStream.EDGE) {
          span.start = this.held.start;
        } else {
          out.push(this.held);
        }
        this.held = null;
      }
      out.push(span);
    }
    if (this.held && spans.length === 0) {
      out.push(this.held);
      this.held = null;
    }
    const tail = out.at(-1);
    if (!last && tail && end - tail.end <= WindowedVadStream.EDGE) this.held = out.pop()!;
    return out;
  }
}
