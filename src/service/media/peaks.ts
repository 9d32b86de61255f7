import { SAMPLE_RATE } from '../speech/types';
import { decodeAudio } from './decode';
import type { MediaTools } from './tools';

/** Waveform overview for the studio: the largest |sample| in each bucket of 1/peaksPerSecond seconds. */
export interface Peaks {
  duration: number;
  peaks_per_second: number;
  /** 0..1, rounded to 3 decimals; the last bucket may cover less time than the others. */
  peaks: number[];
}

export const DEFAULT_PEAKS_PER_SECOND = 50;

/**
 * Folds PCM blocks of any size into max-abs buckets in one pass; memory is the peaks list only.
 * Bucket edges are placed on exact sample positions (round(k · rate / pps)) so rates that do not divide
 * 16 kHz evenly do not drift.
 */
export class PeakAccumulator {
  readonly peaks: number[] = [];
  private samples = 0;
  private current = 0;
  private nextEdge: number;

  constructor(
    readonly peaksPerSecond: number,
    private readonly sampleRate = SAMPLE_RATE,
  ) {
    if (!(peaksPerSecond > 0) || peaksPerSecond > sampleRate)
      throw new RangeError('peaksPerSecond out of range');
    this.nextEdge = this.edge(1);
  }

  private edge(k: number): number {
    return Math.round((k * this.sampleRate) / this.peaksPerSecond);
  }

  push(block: Float32Array): void {
    let i = 0;
    while (i < block.length) {
      const stop = Math.min(block.length, i + (this.nextEdge - this.samples));
      let max = this.current;
      for (let j = i; j < stop; j++) {
        const v = Math.abs(block[j]!);
        if (v > max) max = v;
      }
      this.samples += stop - i;
      this.current = max;
      i = stop;
      if (this.samples === this.nextEdge) this.flush();
    }
  }

  get sampleCount(): number {
    return this.samples;
  }

  finish(): Peaks {
    if (this.samples > this.edge(this.peaks.length)) this.flush();
    return {
      duration: Math.round((this.samples / this.sampleRate) * 1000) / 1000,
      peaks_per_second: this.peaksPerSecond,
      peaks: this.peaks,
    };
  }

  private flush(): void {
    this.peaks.push(Math.round(Math.min(1, this.current) * 1000) / 1000);
    this.current = 0;
    this.nextEdge = this.edge(this.peaks.length + 1);
  }
}

export interface ComputePeaksOptions {
  peaksPerSecond?: number;
  signal?: AbortSignal;
}

/** Decodes `path` (streamed) and returns its max-abs peaks; throws MediaDecodeError like decodeAudio. */
export async function computePeaks(
  path: string,
  tools: MediaTools,
  options: ComputePeaksOptions = {},
): Promise<Peaks> {
  const acc = new PeakAccumulator(options.peaksPerSecond ?? DEFAULT_PEAKS_PER_SECOND);
  for await (const block of decodeAudio(path, tools, { signal: options.signal })) acc.push(block);
  return acc.finish();
}
