/**
 * Which chunks hold enough late reverberation to dereverberate before recognition, and the WPE dereverberator that
 * decides it. The measure is WPE's own: the energy its first iteration predicts from the chunk's past (24–184 ms
 * back) and removes, over the chunk's energy (read on every 4th frequency bin). A dry chunk is explained by that past
 * only by chance (median −20 dB on the tuning half's recordings, 9 in 10 under −15.8); a room puts its late
 * reverberation there (−12 to −7 dB in a small room: RT60 0.3 s, direct sound 6 dB over the reverberation). The
 * threshold was chosen on the tuning half with the 10-tap filter first shipped, whose readings were within 1 dB of
 * these (bench/asr/README.md, "Reverberation").
 */
import { dereverberateAsync } from './wpe';
import type { Dereverberator } from './types';

export const REVERBERANT_ABOVE_DB = -15;

export function createWpeDereverberator(aboveDb: number = REVERBERANT_ABOVE_DB): Dereverberator {
  return {
    id: 'wpe',
    async dereverberate(pcm) {
      const { pcm: out, applied } = await dereverberateAsync(pcm, { skipBelowDb: aboveDb });
      return { pcm: out, applied };
    },
  };
}
