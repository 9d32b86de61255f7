/** 16-bit little-endian samples, as pocketsphinx_batch reads raw audio (-adcin yes). */
export function float32ToInt16Le(pcm: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) {
    const s = Math.max(-1, Math.min(1, pcm[i]!));
    out.writeInt16LE(Math.round(s * 32767), i * 2);
  }
  return out;
}

/**
 * Cut points that keep every piece at most `maxSamples` long, each at the quietest 10 ms frame in the
 * last third of the window, so a long VAD stretch never splits mid-word if a pause exists. Long
 * utterances make the decoder's lattice (and memory) grow, and the n-gram search gains nothing past a
 * sentence or two.
 */
export function splitPoints(pcm: Float32Array, maxSamples: number, frame = 160): number[] {
  const cuts: number[] = [];
  let start = 0;
  while (pcm.length - start > maxSamples) {
    const lo = start + Math.floor((maxSamples * 2) / 3);
    const hi = start + maxSamples - frame;
    let best = hi;
    let bestEnergy = Infinity;
    for (let f = lo; f <= hi; f += frame) {
      let e = 0;
      for (let i = f; i < f + frame; i++) e += pcm[i]! * pcm[i]!;
      if (e < bestEnergy) {
        bestEnergy = e;
        best = f + frame / 2;
      }
    }
    cuts.push(best);
    start = best;
  }
  return cuts;
}
