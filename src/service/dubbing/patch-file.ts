import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fsyncDir } from '../storage/files';

/**
 * A rendered line on disk: what a revoice writes after each line so it can resume there. A 16-byte
 * header (magic, fade-in frames, fade-out frames, channels) and the region's samples as float32, written
 * to a temporary name, flushed and renamed, so a patch file is either whole or absent.
 */
export interface LinePatch {
  fadeIn: number;
  fadeOut: number;
  channels: number;
  samples: Float32Array;
}

const MAGIC = 0x3150_4c54; // "TLP1"
const HEADER = 16;

export function writePatchFile(file: string, patch: LinePatch): void {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(patch.fadeIn, 4);
  header.writeUInt32LE(patch.fadeOut, 8);
  header.writeUInt32LE(patch.channels, 12);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, header);
    fs.writeSync(fd, Buffer.from(patch.samples.buffer, patch.samples.byteOffset, patch.samples.byteLength));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

export function readPatchFile(file: string): LinePatch {
  const bytes = fs.readFileSync(file);
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC || (bytes.length - HEADER) % 4 !== 0) throw new Error(`${file} is not a line patch`);
  const samples = new Float32Array((bytes.length - HEADER) / 4);
  new Uint8Array(samples.buffer).set(bytes.subarray(HEADER));
  return { fadeIn: bytes.readUInt32LE(4), fadeOut: bytes.readUInt32LE(8), channels: bytes.readUInt32LE(12), samples };
}
