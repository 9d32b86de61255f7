import type { FrameCandidates } from './periodicity';

/** Costs of the pitch path (Praat's defaults for "To Pitch (ac)"). */
export interface PathCosts {
  /** Frames quieter than this share of the global peak lean unvoiced. */
  silenceThreshold: number;
  /** Strength an unvoiced candidate gets; voiced peaks must beat it. */
  voicingThreshold: number;
  /** Strength lost per octave below the ceiling: favours the highest of equally strong octaves. */
  octaveCost: number;
  /** Cost per octave of a jump between voiced frames, at 10 ms steps. */
  octaveJumpCost: number;
  /** Cost of switching between voiced and unvoiced, at 10 ms steps. */
  voicedUnvoicedCost: number;
}

/**
 * Chooses one candidate per frame by dynamic programming (Viterbi) over the whole signal: each candidate
 * scores its strength (voiced, minus the octave cost) or an unvoiced strength that grows as the frame
 * gets quieter; transitions pay for octave jumps and for voicing changes. Jump and voicing costs are
 * scaled to the time step, so they mean the same at any step. Returns the chosen slot of each frame.
 */
export function findPitchPath(c: FrameCandidates, costs: PathCosts): Int32Array {
  const { frames, slots, ceiling } = c;
  const path = new Int32Array(frames);
  if (frames === 0) return path;
  const stepCorrection = 0.01 / c.timeStep;
  const jumpCost = costs.octaveJumpCost * stepCorrection;
  const switchCost = costs.voicedUnvoicedCost * stepCorrection;
  const voiced = (f: number) => f > 0 && f < ceiling;

  const delta = new Float64Array(frames * slots);
  const from = new Int32Array(frames * slots);
  for (let f = 0; f < frames; f++) {
    const quietness = costs.silenceThreshold <= 0 ? 0 : 2 - c.intensity[f]! / (costs.silenceThreshold / (1 + costs.voicingThreshold));
    const unvoicedStrength = costs.voicingThreshold + Math.max(0, quietness);
    const base = f * slots;
    for (let k = 0; k < c.count[f]!; k++) {
      const freq = c.frequency[base + k]!;
      delta[base + k] = voiced(freq) ? c.strength[base + k]! - costs.octaveCost * Math.log2(ceiling / freq) : unvoicedStrength;
    }
  }
  for (let f = 1; f < frames; f++) {
    const prev = (f - 1) * slots;
    const cur = f * slots;
    for (let k2 = 0; k2 < c.count[f]!; k2++) {
      const f2 = c.frequency[cur + k2]!;
      const v2 = voiced(f2);
      let best = -Infinity;
      let bestFrom = 0;
      for (let k1 = 0; k1 < c.count[f - 1]!; k1++) {
        const f1 = c.frequency[prev + k1]!;
        const v1 = voiced(f1);
        const transition = v1 && v2 ? jumpCost * Math.abs(Math.log2(f1 / f2)) : v1 !== v2 ? switchCost : 0;
        const value = delta[prev + k1]! - transition;
        if (value > best) {
          best = value;
          bestFrom = k1;
        }
      }
      delta[cur + k2] = best + delta[cur + k2]!;
      from[cur + k2] = bestFrom;
    }
  }
  const last = (frames - 1) * slots;
  let place = 0;
  for (let k = 1; k < c.count[frames - 1]!; k++) if (delta[last + k]! > delta[last + place]!) place = k;
  for (let f = frames - 1; f >= 0; f--) {
    path[f] = place;
    place = from[f * slots + place]!;
  }
  return path;
}
