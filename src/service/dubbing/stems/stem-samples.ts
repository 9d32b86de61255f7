import type { SampleFormat } from '../../media/wav';
import { BYTES_PER_SAMPLE } from '../../media/wav';

/**
 * Samples in the dub's own units: integers for the integer formats (so stems add up exactly), floats for
 * f32. Stems are computed in these units and written back without any other rounding.
 */
const FULL_SCALE: Record<Exclude<SampleFormat, 'f32'>, number> = { s16: 32768, s24: 8388608, s32: 2147483648 };

export function readUnits(bytes: Buffer, format: SampleFormat): Float64Array {
  const size = BYTES_PER_SAMPLE[format];
  const out = new Float64Array(Math.floor(bytes.length / size));
  for (let i = 0; i < out.length; i++) {
    const at = i * size;
    out[i] = format === 's16' ? bytes.readInt16LE(at) : format === 's24' ? bytes.readIntLE(at, 3) : format === 's32' ? bytes.readInt32LE(at) : bytes.readFloatLE(at);
  }
  return out;
}

/** Writes units back as stored bytes; integers out of range are clipped. */
export function writeUnits(units: Float64Array, format: SampleFormat): Buffer {
  const size = BYTES_PER_SAMPLE[format];
  const out = Buffer.alloc(units.length * size);
  if (format === 'f32') {
    for (let i = 0; i < units.length; i++) out.writeFloatLE(units[i]!, i * size);
    return out;
  }
  const scale = FULL_SCALE[format];
  for (let i = 0; i < units.length; i++) {
    const v = Math.max(-scale, Math.min(scale - 1, units[i]!));
    if (format === 's16') out.writeInt16LE(v, i * size);
    else if (format === 's24') out.writeIntLE(v, i * size, 3);
    else out.writeInt32LE(v, i * size);
  }
  return out;
}

/** Float samples (the background stem, stored as f32) in the dub's units: rounded and clipped for integers. */
export function floatsToUnits(samples: Float32Array, format: SampleFormat): Float64Array {
  const out = new Float64Array(samples.length);
  if (format === 'f32') {
    out.set(samples);
    return out;
  }
  const scale = FULL_SCALE[format];
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i]! * scale);
    out[i] = Number.isNaN(v) ? 0 : Math.max(-scale, Math.min(scale - 1, v));
  }
  return out;
}

/** Which stem to compute: the background, or the speaker with this index. */
export type StemTarget = { kind: 'background' } | { kind: 'speaker'; index: number };

/**
 * One stem's samples over a stretch of frames. The background is the mix where no line is (so whatever
 * sounds between lines stays in it) and the music-and-effects stem under the lines (silence without one); a
 * speaker's stem is the mix minus the background over their lines' frames and silence elsewhere. So, frame by
 * frame, the background plus the one stem that owns the frame is the mix, exactly for integer formats
 * (unless the difference had to be clipped), to float rounding for f32.
 */
export function stemUnits(target: StemTarget, mix: Float64Array, background: Float64Array | null, owner: Int32Array, channels: number): Float64Array {
  const out = new Float64Array(mix.length);
  for (let f = 0; f < owner.length; f++) {
    const who = owner[f]!;
    for (let c = 0; c < channels; c++) {
      const i = f * channels + c;
      const under = background ? background[i]! : 0;
      if (target.kind === 'background') out[i] = who < 0 ? mix[i]! : under;
      else if (who === target.index) out[i] = mix[i]! - under;
    }
  }
  return out;
}
