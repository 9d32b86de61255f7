import { SAMPLE_RATE } from '../types';

/**
 * Where the pipeline keeps decoded PCM between the decoder and the engines. Two policies:
 * - RetainedPcm keeps the whole recording in one buffer, because the Diarizer contract takes the full
 *   signal (16 kHz float32: 3.84 MB per minute, 230 MB per hour). Sized from the container's duration
 *   up front so it is allocated once; chunk reads are views, never copies. `shared`: the buffer is a
 *   SharedArrayBuffer, so a diarizer on another thread can read the recording while chunks still decode.
 * - WindowedPcm keeps only what is not yet handed to the recognizer (used without a diarizer), so memory
 *   is bounded by the chunks in flight whatever the recording's length.
 */
export interface PcmStore {
  readonly length: number;
  append(block: Float32Array): void;
  /** Samples [start, end) clamped to what is held; the caller must not write to the result. */
  read(start: number, end: number): Float32Array;
  /** Tells the store no read will start before `sample` again. */
  release(sample: number): void;
}

export class RetainedPcm implements PcmStore {
  private buffer: Float32Array;
  private used = 0;
  /** Set by all(): the buffer may now belong to another thread (transferred, so detached here, unless shared). */
  private handedOver = false;
  private readonly shared: boolean;

  constructor(expectedSeconds: number | null, options: { shared?: boolean } = {}) {
    this.shared = options.shared === true;
    // One second of slack: containers round their durations and resampling adds a few samples.
    this.buffer = this.allocate(Math.ceil(((expectedSeconds ?? 60) + 1) * SAMPLE_RATE));
  }

  get length(): number {
    return this.used;
  }

  /**
   * The duration learnt after decoding began: the buffer grows to it once, if larger (a copy of the few
   * seconds decoded so far), rather than by halves as the audio arrives.
   */
  reserve(expectedSeconds: number | null): void {
    // A duration that arrives after the input ended (a slow probe) has nothing left to size.
    if (this.handedOver) return;
    const size = Math.ceil(((expectedSeconds ?? 0) + 1) * SAMPLE_RATE);
    if (size <= this.buffer.length) return;
    const grown = this.allocate(size);
    grown.set(this.buffer.subarray(0, this.used));
    this.buffer = grown;
  }

  append(block: Float32Array): void {
    if (this.handedOver) throw new Error('RetainedPcm: the recording was handed over; no audio can follow');
    if (this.used + block.length > this.buffer.length) {
      // The container understated its length; grow by half again (rare, so the copy does not matter). Views
      // read before keep the old buffer alive until they are dropped; they hold the same samples.
      const grown = this.allocate(Math.max(this.used + block.length, Math.ceil(this.buffer.length * 1.5)));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.buffer.set(block, this.used);
    this.used += block.length;
  }

  read(start: number, end: number): Float32Array {
    return this.buffer.subarray(Math.max(0, start), Math.min(this.used, end));
  }

  release(): void {}

  /**
   * The whole recording (a view), once the input has ended: the receiver may transfer its buffer, or, when
   * it is shared, read it from another thread while earlier reads are still in use here.
   */
  all(): Float32Array {
    this.handedOver = true;
    return this.buffer.subarray(0, this.used);
  }

  private allocate(samples: number): Float32Array {
    return this.shared
      ? new Float32Array(new SharedArrayBuffer(samples * Float32Array.BYTES_PER_ELEMENT))
      : new Float32Array(samples);
  }
}

export class WindowedPcm implements PcmStore {
  private blocks: { start: number; data: Float32Array }[] = [];
  private total = 0;

  get length(): number {
    return this.total;
  }

  /** Samples currently held, for tests and memory accounting. */
  get held(): number {
    return this.blocks.reduce((n, b) => n + b.data.length, 0);
  }

  append(block: Float32Array): void {
    this.blocks.push({ start: this.total, data: block });
    this.total += block.length;
  }

  read(start: number, end: number): Float32Array {
    const from = Math.max(0, start);
    const to = Math.min(this.total, end);
    const out = new Float32Array(Math.max(0, to - from));
    for (const b of this.blocks) {
      const bEnd = b.start + b.data.length;
      if (bEnd <= from || b.start >= to) continue;
      const s = Math.max(from, b.start);
      const e = Math.min(to, bEnd);
      out.set(b.data.subarray(s - b.start, e - b.start), s - from);
    }
    return out;
  }

  release(sample: number): void {
    let drop = 0;
    while (drop < this.blocks.length && this.blocks[drop]!.start + this.blocks[drop]!.data.length <= sample)
      drop++;
    if (drop) this.blocks.splice(0, drop);
  }
}
