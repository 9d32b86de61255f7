/**
 * Where a synthesized phrase actually sounds: the first and last 10 ms frames whose level is within
 * `thresholdDb` of the loudest frame, widened by `padSeconds`. Engines pad their output with silence;
 * a dub line must start where the words start.
 */
export function soundingSpan(
  samples: Float32Array,
  sampleRate: number,
  options: { thresholdDb?: number; frameSeconds?: number; padSeconds?: number } = {},
): { start: number; end: number } {
  const frame = Math.max(1, Math.round((options.frameSeconds ?? 0.01) * sampleRate));
  const count = Math.ceil(samples.length / frame);
  const power = new Float64Array(count);
  let loudest = 0;
  for (let f = 0; f < count; f++) {
    let sum = 0;
    const end = Math.min(samples.length, (f + 1) * frame);
    for (let i = f * frame; i < end; i++) sum += samples[i]! * samples[i]!;
    power[f] = sum / Math.max(1, end - f * frame);
    if (power[f]! > loudest) loudest = power[f]!;
  }
  if (loudest === 0) return { start: 0, end: 0 };
  const floor = loudest * 10 ** ((options.thresholdDb ?? -40) / 10);
  let first = 0;
  while (first < count - 1 && power[first]! < floor) first++;
  let last = count - 1;
  while (last > first && power[last]! < floor) last--;
  const pad = Math.round((options.padSeconds ?? 0.01) * sampleRate);
  return { start: Math.max(0, first * frame - pad), end: Math.min(samples.length, (last + 1) * frame + pad) };
}

/** The sounding part of `samples` (a copy). */
export function trimSilence(samples: Float32Array, sampleRate: number, options?: Parameters<typeof soundingSpan>[2]): Float32Array {
  const { start, end } = soundingSpan(samples, sampleRate, options);
  return samples.slice(start, end);
}

/** Mean power of the loudest `frameSeconds` frame of interleaved samples (all channels pooled). */
export function loudestFramePower(samples: Float32Array, channels: number, sampleRate: number, frameSeconds = 0.01): number {
  const frame = Math.max(1, Math.round(frameSeconds * sampleRate)) * channels;
  let loudest = 0;
  for (let start = 0; start < samples.length; start += frame) {
    let sum = 0;
    const end = Math.min(samples.length, start + frame);
    for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
    loudest = Math.max(loudest, sum / (end - start));
  }
  return loudest;
}

/**
 * Seconds of quiet at the start of interleaved samples: whole `frameSeconds` frames whose mean power stays
 * below `floorPower`, up to the first that does not.
 */
export function leadingQuiet(samples: Float32Array, channels: number, sampleRate: number, floorPower: number, frameSeconds = 0.01): number {
  const frame = Math.max(1, Math.round(frameSeconds * sampleRate)) * channels;
  let quiet = 0;
  for (let start = 0; start + frame <= samples.length; start += frame) {
    let sum = 0;
    for (let i = start; i < start + frame; i++) sum += samples[i]! * samples[i]!;
    if (sum / frame >= floorPower) break;
    quiet += frame;
  }
  return quiet / channels / sampleRate;
}
