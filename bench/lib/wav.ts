import { wavHeader } from '../../src/service/media/wav';

/** A mono WAV file around raw little-endian samples: 16-bit PCM or 32-bit IEEE float. */
export function wavFile(data: Buffer, sampleRate: number, format: 'int16' | 'float32'): Buffer {
  const header = wavHeader({ sampleRate, channels: 1, sampleFormat: format === 'int16' ? 's16' : 'f32' }, data.length / (format === 'int16' ? 2 : 4));
  return Buffer.concat([header, data]);
}
