import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveMediaTools } from '../../src/service/media/tools';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = process.env.TAKELINE_SHARED_DIR ?? path.resolve(repoRoot, '../shared');

/** Decodes any media file to 16 kHz mono float32 with ffmpeg. */
export function decodeAudio(file: string): Promise<Float32Array> {
  const { ffmpeg } = resolveMediaTools();
  return new Promise((resolve, reject) => {
    execFile(
      ffmpeg,
      ['-v', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 'f32le', '-'],
      { encoding: 'buffer', maxBuffer: 1 << 30 },
      (error, stdout) => {
        if (error) return reject(error);
        const copy = new Uint8Array(stdout).slice();
        resolve(new Float32Array(copy.buffer, 0, copy.byteLength / 4));
      },
    );
  });
}
