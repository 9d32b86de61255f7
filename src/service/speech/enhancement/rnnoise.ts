/**
 * RNNoise (Valin, "A Hybrid DSP/Deep Learning Approach to Real-Time Full-Band Speech Enhancement", 2018) as a
 * speech denoiser: a small recurrent network, its weights compiled into the WebAssembly build that the npm package
 * `@echogarden/rnnoise-wasm` ships (BSD-3-Clause; echogarden's own denoiser). It works on 48 kHz frames of 480
 * samples at 16-bit scale, so 16 kHz audio is resampled by three on the way in and out.
 */
import { downsampleByThree, upsampleByThree } from '../../dsp/resample-by-three';
import { SAMPLE_RATE } from '../types';
import type { Denoiser } from './types';

const FRAME = 480;
const INT16_SCALE = 32_768;
/** 100 frames = 1 s of audio, about 30 ms of work on this machine. */
const YIELD_FRAMES = 100;

interface RnnoiseModule {
  _rnnoise_create(model: number): number;
  _rnnoise_destroy(state: number): void;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
  _rnnoise_get_frame_size(): number;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  HEAPF32: Float32Array;
}

/** The wasm module loads on first use and is kept; each call gets its own recurrent state. */
export function createRnnoiseDenoiser(): Denoiser {
  let loading: Promise<RnnoiseModule> | null = null;
  const load = () =>
    (loading ??= import('@echogarden/rnnoise-wasm').then(async ({ default: factory }) => {
      const module = (await factory()) as RnnoiseModule;
      if (module._rnnoise_get_frame_size() !== FRAME) throw new Error('RNNoise: unexpected frame size');
      return module;
    }));
  return {
    id: 'rnnoise',
    async denoise(pcm: Float32Array, sampleRate = SAMPLE_RATE): Promise<Float32Array> {
      if (sampleRate !== SAMPLE_RATE)
        throw new Error(`RNNoise denoiser takes ${SAMPLE_RATE} Hz audio, not ${sampleRate}`);
      if (pcm.length === 0) return new Float32Array(0);
      const module = await load();
      const up = upsampleByThree(pcm);
      // The output lags the input by one frame (overlap-add synthesis): one more frame is fed and the lag cut.
      const out = new Float32Array(up.length + FRAME);
      const state = module._rnnoise_create(0);
      const buffer = module._malloc(FRAME * 4);
      try {
        for (let at = 0; at < out.length; at += FRAME) {
          // Runs on the service's thread: a second of audio at a time, then the event loop gets its turn.
          if (at > 0 && at % (YIELD_FRAMES * FRAME) === 0)
            await new Promise<void>((resolve) => setImmediate(resolve));
          // The heap may grow (and move) between calls: take a fresh view each frame.
          const frame = new Float32Array(module.HEAPF32.buffer, buffer, FRAME);
          for (let j = 0; j < FRAME; j++) frame[j] = at + j < up.length ? up[at + j]! * INT16_SCALE : 0;
          module._rnnoise_process_frame(state, buffer, buffer);
          const done = new Float32Array(module.HEAPF32.buffer, buffer, FRAME);
          const n = Math.min(FRAME, out.length - at);
          for (let j = 0; j < n; j++) out[at + j] = done[j]! / INT16_SCALE;
        }
      } finally {
        module._free(buffer);
        module._rnnoise_destroy(state);
      }
      return downsampleByThree(out.subarray(FRAME, FRAME + up.length));
    },
  };
}
