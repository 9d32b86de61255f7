import { describe, expect, it } from 'vitest';
import { frameLevels } from '../../dsp/levels';
import { rng } from '../diarization/synthetic.testutil';
import { strongestFall, strongestRise } from './onsets';

const SR = 16_000;

function noise(seconds: number, amplitude: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: Math.round(seconds * SR) }, () => (r() * 2 - 1) * amplitude);
}

/** Claps: 15 ms noise bursts every 90 ms, the way a crowd's claps pile up (each burst at `amplitude`). */
function claps(seconds: number, amplitude: number, seed: number): Float32Array {
  const out = noise(seconds, amplitude, seed);
  for (let i = 0; i < out.length; i++) if (i % 960 >= 320) out[i]! *= 0.1;
  return out;
}

describe('level steps', () => {
  it('places a noise burst’s onset and offset over room tone to within 20 ms', () => {
    const pcm = noise(6, 0.001, 3);
    const burst = noise(2.013, 0.1, 1);
    for (let i = 0; i < burst.length; i++) pcm[2 * SR + i]! += burst[i]!;
    const levels = frameLevels(pcm, SR);
    const rise = strongestRise(levels, 1.2, 2.8)!;
    const fall = strongestFall(levels, 3.2, 4.8)!;
    expect(Math.abs(rise.time - 2)).toBeLessThan(0.02);
    expect(rise.step).toBeGreaterThan(30);
    expect(Math.abs(fall.time - 4.013)).toBeLessThan(0.02);
  });

  it('takes a train of claps as one onset, not one per clap', () => {
    const pcm = new Float32Array(5 * SR);
    pcm.set(claps(2, 0.2, 2), Math.round(1.5 * SR));
    const levels = frameLevels(pcm, SR);
    expect(Math.abs(strongestRise(levels, 0.8, 2.5)!.time - 1.5)).toBeLessThan(0.05);
    // Inside the train the median level holds: no step reaches 6 dB.
    expect(strongestRise(levels, 1.8, 3.2)).toBeNull();
    expect(strongestFall(levels, 1.8, 3.2)).toBeNull();
  });

  it('finds nothing in steady sound or where the window cannot fit', () => {
    const levels = frameLevels(noise(3, 0.1, 4), SR);
    expect(strongestRise(levels, 0.5, 2.5)).toBeNull();
    expect(strongestRise(levels, 2.9, 3)).toBeNull();
  });
});
