/**
 * A rendered line as stored: what a revoice keeps after each line so it can resume there, and what a take
 * keeps to be put in. A 16-byte header (magic, fade-in frames, fade-out frames, channels) and the region's
 * samples as float32. The blob store writes it whole or not at all.
 */
export interface LinePatch {
  fadeIn: number;
  fadeOut: number;
  channels: number;
  samples: Float32Array;
}

const MAGIC = 0x3150_4c54; // "TLP1"
const HEADER = 16;

export function encodePatch(patch: LinePatch): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(patch.fadeIn, 4);
  header.writeUInt32LE(patch.fadeOut, 8);
  header.writeUInt32LE(patch.channels, 12);
  return Buffer.concat([header, Buffer.from(patch.samples.buffer, patch.samples.byteOffset, patch.samples.byteLength)]);
}

/** `name` says which patch it is, in the error when the bytes are not one. */
export function decodePatch(bytes: Buffer, name: string): LinePatch {
  if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC || (bytes.length - HEADER) % 4 !== 0) throw new Error(`${name} is not a line patch`);
  const samples = new Float32Array((bytes.length - HEADER) / 4);
  new Uint8Array(samples.buffer).set(bytes.subarray(HEADER));
  return { fadeIn: bytes.readUInt32LE(4), fadeOut: bytes.readUInt32LE(8), channels: bytes.readUInt32LE(12), samples };
}
