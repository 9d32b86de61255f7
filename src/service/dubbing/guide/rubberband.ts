import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeWav, encodeWav } from '../../media/wav';
import { runProgram } from '../../media/run-program';

/** Debian's `rubberband-cli`. */
export const DEFAULT_RUBBERBAND = 'rubberband';

/**
 * Moves a mono signal's pitch by `semitones` with its duration and formants kept, with Rubber Band's finer
 * (R3) engine. The output has the input's length, to the frame.
 */
export async function rubberbandPitch(binary: string, samples: Float32Array, sampleRate: number, semitones: number, signal?: AbortSignal): Promise<Float32Array> {
  if (Math.abs(semitones) < 1e-3 || samples.length === 0) return samples.slice();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-pitch-'));
  try {
    const inFile = path.join(dir, 'in.wav');
    const outFile = path.join(dir, 'out.wav');
    fs.writeFileSync(inFile, encodeWav(samples, { sampleRate, channels: 1, sampleFormat: 'f32' }));
    await runProgram(binary, ['-q', '-3', '--formant', '-p', semitones.toFixed(4), inFile, outFile], { signal, timeoutMs: 120_000 });
    const shifted = decodeWav(fs.readFileSync(outFile)).samples;
    const out = new Float32Array(samples.length);
    out.set(shifted.subarray(0, samples.length));
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
