import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeWav, encodeWav } from '../../media/wav';
import { runProgram } from '../../media/run-program';
import type { ShiftPoint } from './pitch-contour';

/** Debian's `rubberband-cli`. */
export const DEFAULT_RUBBERBAND = 'rubberband';

/**
 * Moves a mono signal's pitch by `semitones` with its duration and formants kept, with Rubber Band's finer
 * (R3) engine; with `contour`, by a shift that changes over time instead (Rubber Band's pitch map: each point's
 * shift from its time on). The output has the input's length, to the frame.
 */
export async function rubberbandPitch(
  binary: string,
  samples: Float32Array,
  sampleRate: number,
  semitones: number,
  signal?: AbortSignal,
  contour?: readonly ShiftPoint[],
): Promise<Float32Array> {
  const moves = contour?.length ? contour.some((p) => Math.abs(p.semitones) >= 1e-3) : Math.abs(semitones) >= 1e-3;
  if (!moves || samples.length === 0) return samples.slice();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-pitch-'));
  try {
    const inFile = path.join(dir, 'in.wav');
    const outFile = path.join(dir, 'out.wav');
    fs.writeFileSync(inFile, encodeWav(samples, { sampleRate, channels: 1, sampleFormat: 'f32' }));
    const shift = ['-p', semitones.toFixed(4)];
    if (contour?.length) {
      // Frames must rise; the map's shifts are absolute (no -p beside it).
      const mapFile = path.join(dir, 'pitch.map');
      let last = -1;
      const rows = contour.flatMap((p) => {
        const frame = Math.round(p.seconds * sampleRate);
        if (frame <= last) return [];
        last = frame;
        return [`${frame} ${p.semitones.toFixed(4)}`];
      });
      fs.writeFileSync(mapFile, `${rows.join('\n')}\n`);
      shift.splice(0, 2, '--pitchmap', mapFile);
    }
    await runProgram(binary, ['-q', '-3', '--formant', ...shift, inFile, outFile], { signal, timeoutMs: 120_000 });
    const shifted = decodeWav(fs.readFileSync(outFile)).samples;
    const out = new Float32Array(samples.length);
    out.set(shifted.subarray(0, samples.length));
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
