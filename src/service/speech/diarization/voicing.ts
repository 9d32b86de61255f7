/**
 * Periodicity of each analysis frame: the highest normalised autocorrelation over pitch lags 60–400 Hz,
 * on the frame decimated to 8 kHz (pairs averaged) to keep the cost near 23 k multiply-adds per frame.
 * Near 1 for voiced speech from one voice; lower for unvoiced sounds, silence, noise and two voices at
 * once. Frame i covers samples [i·hop, i·hop + frameLength) of 16 kHz audio.
 */
export function frameVoicing(pcm: Float32Array, frames: number, hop: number, frameLength: number): Float32Array {
  return framePitch(pcm, frames, hop, frameLength).voicing;
}

/**
 * `frameVoicing` together with each frame's pitch estimate, Hz: the lag of that autocorrelation peak
 * (meaningful only where voicing is high; octave errors still happen, so use medians). Used by the bench to
 * check whether F0 could tell two voices apart (bench/diarization/README.md).
 */
export function framePitch(
  pcm: Float32Array,
  frames: number,
  hop: number,
  frameLength: number,
): { voicing: Float32Array; f0: Float32Array } {
  const n = Math.floor(frameLength / 2);
  const minLag = 20; // 400 Hz at 8 kHz
  const maxLag = Math.min(n - 1, 133); // 60 Hz
  const x = new Float32Array(n);
  const voicing = new Float32Array(frames);
  const f0 = new Float32Array(frames);
  const r = new Float64Array(maxLag + 2);
  for (let f = 0; f < frames; f++) {
    const o = f * hop;
    for (let i = 0; i < n; i++) x[i] = ((pcm[o + 2 * i] ?? 0) + (pcm[o + 2 * i + 1] ?? 0)) / 2;
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let xy = 0;
      let xx = 0;
      let yy = 0;
      for (let i = 0; i + lag < n; i++) {
        const a = x[i]!;
        const b = x[i + lag]!;
        xy += a * b;
        xx += a * a;
        yy += b * b;
      }
      r[lag] = xy / Math.sqrt(xx * yy + 1e-12);
      best = Math.max(best, r[lag]!);
    }
    voicing[f] = best;
    // Multiples of the period correlate as well as the period itself: take the shortest lag whose peak
    // comes within 3% of the best.
    let lag = minLag;
    while (lag < maxLag && !(r[lag]! >= 0.97 * best && r[lag]! >= r[lag - 1]! && r[lag]! >= r[lag + 1]!)) lag++;
    f0[f] = best > 0 ? 8000 / lag : 0;
  }
  return { voicing, f0 };
}
