/** A speech enhancer engine: noisy speech in, the same speech with less background out, same length and timing. */
export interface Denoiser {
  readonly id: string;
  denoise(pcm: Float32Array, sampleRate?: number): Promise<Float32Array>;
}

/**
 * A dereverberation engine: speech from a reverberant room in, drier speech out, same length and timing. It may
 * find too little reverberation to act on; it then returns the input itself and says so (`applied` false).
 */
export interface Dereverberator {
  readonly id: string;
  dereverberate(pcm: Float32Array): Promise<{ pcm: Float32Array; applied: boolean }>;
}
