/** A mono WAV file around raw little-endian samples: 16-bit PCM or 32-bit IEEE float. */
export function wavFile(data: Buffer, sampleRate: number, format: 'int16' | 'float32'): Buffer {
  const bytes = format === 'int16' ? 2 : 4;
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(format === 'int16' ? 1 : 3, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * bytes, 28);
  h.writeUInt16LE(bytes, 32);
  h.writeUInt16LE(8 * bytes, 34);
  h.write('data', 36);
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}
