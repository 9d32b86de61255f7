import type { MediaTools } from './tools';
import { runProgram } from './run-program';
import { f32leBytes } from './encode';

/** Mono float PCM from one rate to another with ffmpeg's resampler (a short clip: a line of speech). */
export async function resampleMono(tools: MediaTools, samples: Float32Array, fromRate: number, toRate: number, signal?: AbortSignal): Promise<Float32Array> {
  if (fromRate === toRate || samples.length === 0) return samples.slice();
  const { stdout } = await runProgram(
    tools.ffmpeg,
    ['-nostdin', '-hide_banner', '-loglevel', 'error', '-f', 'f32le', '-ar', String(fromRate), '-ac', '1', '-i', 'pipe:0', '-af', `aresample=${toRate}`, '-f', 'f32le', 'pipe:1'],
    { stdin: f32leBytes(samples), signal },
  );
  // Copy into an aligned buffer: Buffer pools may hand out unaligned offsets.
  const out = new Float32Array(stdout.length / 4);
  new Uint8Array(out.buffer).set(stdout.subarray(0, out.length * 4));
  return out;
}
