/**
 * Equal-power crossfades: the incoming signal rises as sin(πx/2) while the outgoing falls as cos(πx/2),
 * so for uncorrelated signals (a new voice against the old mix) the summed power stays constant through
 * the fade, with no dip or bump in level.
 */
export function equalPowerGains(x: number): { fadeIn: number; fadeOut: number } {
  const t = Math.min(1, Math.max(0, x));
  return { fadeIn: Math.sin((Math.PI / 2) * t), fadeOut: Math.cos((Math.PI / 2) * t) };
}

/**
 * Replaces `current` with `incoming` over a region (interleaved, same length): the first `fadeInFrames`
 * frames crossfade from current to incoming, the last `fadeOutFrames` back to current, and every frame in
 * between is `incoming` exactly. Frame positions are sampled at their centres, so the region's first
 * frame already carries a little of the incoming signal and its last a little of it still.
 */
export function crossfadeRegion(current: Float32Array, incoming: Float32Array, channels: number, fadeInFrames: number, fadeOutFrames: number): Float32Array {
  if (current.length !== incoming.length) throw new RangeError('crossfade: the two signals differ in length');
  const frames = current.length / channels;
  if (fadeInFrames + fadeOutFrames > frames) throw new RangeError('crossfade: the fades are longer than the region');
  const out = incoming.slice();
  const mix = (frame: number, x: number) => {
    const { fadeIn, fadeOut } = equalPowerGains(x);
    for (let c = 0; c < channels; c++) {
      const i = frame * channels + c;
      out[i] = current[i]! * fadeOut + incoming[i]! * fadeIn;
    }
  };
  for (let f = 0; f < fadeInFrames; f++) mix(f, (f + 0.5) / fadeInFrames);
  for (let f = 0; f < fadeOutFrames; f++) mix(frames - 1 - f, (f + 0.5) / fadeOutFrames);
  return out;
}
