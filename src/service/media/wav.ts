import fs from 'node:fs';

/**
 * RIFF/WAVE in the sample formats Takeline stores and reads: integer PCM of 16, 24 or 32 bits and 32-bit
 * float, interleaved, any channel count (WAVE_FORMAT_EXTENSIBLE headers are read too). Dub revisions are
 * stored as WAV so a revoice can copy the previous revision and rewrite only the samples it changed: every
 * other byte stays as it was.
 */
export type SampleFormat = 's16' | 's24' | 's32' | 'f32';

export interface WavFormat {
  sampleRate: number;
  channels: number;
  sampleFormat: SampleFormat;
}

export interface WavLayout extends WavFormat {
  /** Byte offset of the first sample in the file. */
  dataOffset: number;
  /** Frames (one sample per channel) in the data chunk. */
  frames: number;
}

export class WavError extends Error {}

export const BYTES_PER_SAMPLE: Record<SampleFormat, number> = { s16: 2, s24: 3, s32: 4, f32: 4 };
const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

export function frameBytes(format: WavFormat): number {
  return BYTES_PER_SAMPLE[format.sampleFormat] * format.channels;
}

/** Reads the layout from the start of a WAV file (the first chunks, not the samples). */
export function parseWavHeader(head: Buffer, fileSize = head.length): WavLayout {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavError('not a RIFF/WAVE file');
  }
  let pos = 12;
  let format: WavFormat | null = null;
  while (pos + 8 <= head.length) {
    const id = head.toString('ascii', pos, pos + 4);
    const size = head.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (body + 16 > head.length) break;
      let tag = head.readUInt16LE(body);
      const channels = head.readUInt16LE(body + 2);
      const sampleRate = head.readUInt32LE(body + 4);
      const bits = head.readUInt16LE(body + 14);
      if (tag === WAVE_FORMAT_EXTENSIBLE && size >= 40 && body + 26 <= head.length) tag = head.readUInt16LE(body + 24);
      format = { channels, sampleRate, sampleFormat: sampleFormatOf(tag, bits) };
      if (channels < 1 || sampleRate < 1) throw new WavError('WAV header has no channels or no sample rate');
    } else if (id === 'data') {
      if (!format) throw new WavError('WAV data chunk before its fmt chunk');
      // Streamed WAVs (size unknown) say 0 or 0xFFFFFFFF: the data then runs to the end of the file.
      const available = fileSize - body;
      const bytes = size === 0 || size === 0xffffffff || size > available ? available : size;
      return { ...format, dataOffset: body, frames: Math.floor(bytes / frameBytes(format)) };
    }
    pos = body + size + (size % 2);
  }
  throw new WavError(format ? 'WAV file has no data chunk in its first bytes' : 'WAV file has no fmt chunk');
}

function sampleFormatOf(tag: number, bits: number): SampleFormat {
  if (tag === WAVE_FORMAT_PCM && bits === 16) return 's16';
  if (tag === WAVE_FORMAT_PCM && bits === 24) return 's24';
  if (tag === WAVE_FORMAT_PCM && bits === 32) return 's32';
  if (tag === WAVE_FORMAT_IEEE_FLOAT && bits === 32) return 'f32';
  throw new WavError(`unsupported WAV sample format (tag ${tag}, ${bits} bits)`);
}

/** A canonical 44-byte header (68 with WAVE_FORMAT_EXTENSIBLE, which more than two channels need). */
export function wavHeader(format: WavFormat, frames: number): Buffer {
  const extensible = format.channels > 2;
  const bytesPerSample = BYTES_PER_SAMPLE[format.sampleFormat];
  const tag = format.sampleFormat === 'f32' ? WAVE_FORMAT_IEEE_FLOAT : WAVE_FORMAT_PCM;
  const fmtSize = extensible ? 40 : 16;
  const dataBytes = frames * frameBytes(format);
  const header = Buffer.alloc(12 + 8 + fmtSize + 8);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(4 + 8 + fmtSize + 8 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(fmtSize, 16);
  header.writeUInt16LE(extensible ? WAVE_FORMAT_EXTENSIBLE : tag, 20);
  header.writeUInt16LE(format.channels, 22);
  header.writeUInt32LE(format.sampleRate, 24);
  header.writeUInt32LE(format.sampleRate * frameBytes(format), 28);
  header.writeUInt16LE(frameBytes(format), 32);
  header.writeUInt16LE(bytesPerSample * 8, 34);
  if (extensible) {
    header.writeUInt16LE(22, 36);
    header.writeUInt16LE(bytesPerSample * 8, 38);
    header.writeUInt32LE(0, 40); // no speaker positions claimed
    // KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT: the tag followed by the fixed GUID tail.
    header.writeUInt16LE(tag, 44);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(header, 46);
  }
  const data = 12 + 8 + fmtSize;
  header.write('data', data, 'ascii');
  header.writeUInt32LE(dataBytes, data + 4);
  return header;
}

/**
 * Float samples → stored bytes. Integers are scaled by 2^(bits−1), rounded to nearest and clipped, the
 * inverse of `decodeSamples`, so decoding and re-encoding an integer WAV gives back the same bytes.
 */
export function encodeSamples(samples: Float32Array, format: SampleFormat): Buffer {
  const out = Buffer.alloc(samples.length * BYTES_PER_SAMPLE[format]);
  switch (format) {
    case 's16':
      for (let i = 0; i < samples.length; i++) out.writeInt16LE(quantize(samples[i]!, 32768), i * 2);
      break;
    case 's24':
      for (let i = 0; i < samples.length; i++) out.writeIntLE(quantize(samples[i]!, 8388608), i * 3, 3);
      break;
    case 's32':
      for (let i = 0; i < samples.length; i++) out.writeInt32LE(quantize(samples[i]!, 2147483648), i * 4);
      break;
    case 'f32':
      for (let i = 0; i < samples.length; i++) out.writeFloatLE(samples[i]!, i * 4);
      break;
  }
  return out;
}

function quantize(value: number, scale: number): number {
  const scaled = Math.round(value * scale);
  if (Number.isNaN(scaled)) return 0;
  return Math.max(-scale, Math.min(scale - 1, scaled));
}

/** Stored bytes → float samples in [-1, 1) (interleaved, as stored). */
export function decodeSamples(bytes: Buffer, format: SampleFormat): Float32Array {
  const n = Math.floor(bytes.length / BYTES_PER_SAMPLE[format]);
  const out = new Float32Array(n);
  switch (format) {
    case 's16':
      for (let i = 0; i < n; i++) out[i] = bytes.readInt16LE(i * 2) / 32768;
      break;
    case 's24':
      for (let i = 0; i < n; i++) out[i] = bytes.readIntLE(i * 3, 3) / 8388608;
      break;
    case 's32':
      for (let i = 0; i < n; i++) out[i] = bytes.readInt32LE(i * 4) / 2147483648;
      break;
    case 'f32':
      for (let i = 0; i < n; i++) out[i] = bytes.readFloatLE(i * 4);
      break;
  }
  return out;
}

/** A whole WAV file in memory (short clips: synthesized speech, tests). */
export function encodeWav(samples: Float32Array, format: WavFormat): Buffer {
  const frames = Math.floor(samples.length / format.channels);
  return Buffer.concat([wavHeader(format, frames), encodeSamples(samples, format.sampleFormat)]);
}

export function decodeWav(file: Buffer): WavFormat & { samples: Float32Array; frames: number } {
  const layout = parseWavHeader(file);
  const bytes = file.subarray(layout.dataOffset, layout.dataOffset + layout.frames * frameBytes(layout));
  return { ...layout, samples: decodeSamples(bytes, layout.sampleFormat) };
}

/** Reads a WAV file's layout from disk without reading its samples. */
export function readWavLayout(fd: number): WavLayout {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(Math.min(size, 64 * 1024));
  fs.readSync(fd, head, 0, head.length, 0);
  return parseWavHeader(head, size);
}

/** Frames [start, start + count) as interleaved floats; frames past the end read as silence. */
export function readFrames(fd: number, layout: WavLayout, start: number, count: number): Float32Array {
  const out = new Float32Array(count * layout.channels);
  const from = Math.max(0, start);
  const to = Math.min(layout.frames, start + count);
  if (to <= from) return out;
  const fb = frameBytes(layout);
  const bytes = Buffer.alloc((to - from) * fb);
  fs.readSync(fd, bytes, 0, bytes.length, layout.dataOffset + from * fb);
  out.set(decodeSamples(bytes, layout.sampleFormat), (from - start) * layout.channels);
  return out;
}

/** Overwrites frames starting at `start` in place (the samples must lie inside the data chunk). */
export function writeFrames(fd: number, layout: WavLayout, start: number, samples: Float32Array): void {
  const count = samples.length / layout.channels;
  if (!Number.isInteger(count) || start < 0 || start + count > layout.frames) {
    throw new RangeError(`frames ${start}..${start + count} are outside the file's ${layout.frames}`);
  }
  const bytes = encodeSamples(samples, layout.sampleFormat);
  fs.writeSync(fd, bytes, 0, bytes.length, layout.dataOffset + start * frameBytes(layout));
}

/** An open WAV file to read frames from. */
export interface WavSource {
  fd: number;
  layout: WavLayout;
}

/** Opens a WAV file and reads its layout; the descriptor is closed again when the layout cannot be read. */
export function openWav(file: string): WavSource {
  const fd = fs.openSync(file, 'r');
  try {
    return { fd, layout: readWavLayout(fd) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}
