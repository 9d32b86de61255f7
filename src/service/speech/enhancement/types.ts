/** A speech enhancer engine: noisy speech in, the same speech with less background out, same length and timing. */
export interface Denoiser {
  readonly id: string;
  denoise(pcm: Float32Array, sampleRate?: number): Promise<Float32Array>;
}
