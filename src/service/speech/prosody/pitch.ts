import { findPitchPath, type PathCosts } from './pathFinder';
import { analysePeriodicity } from './periodicity';

/** F0 per frame. */
export interface PitchTrack {
  timeStep: number;
  /** Time of frame 0, s from the start of the pcm passed in. */
  start: number;
  /** Hz; 0 = unvoiced. */
  f0: Float32Array;
  /** Correlation strength of the chosen candidate, 0–1 (0 when unvoiced). */
  strength: Float32Array;
}

export interface PitchOptions extends Partial<PathCosts> {
  /** Hz, default 75. */
  floor?: number;
  /** Hz, default 600. */
  ceiling?: number;
  /** Seconds; default 0.75 / floor (10 ms at 75 Hz), as Praat's "To Pitch (ac)" with time step 0. */
  timeStep?: number;
  /** Candidates per frame, the unvoiced one included; default 15. */
  maxCandidates?: number;
}

/** Praat's standard values for "To Pitch (ac)" (Praat 6.3: Sound: To Pitch…). */
export const PITCH_DEFAULTS = {
  floor: 75,
  ceiling: 600,
  maxCandidates: 15,
  silenceThreshold: 0.03,
  voicingThreshold: 0.45,
  octaveCost: 0.01,
  octaveJumpCost: 0.35,
  voicedUnvoicedCost: 0.14,
} as const;

const PERIODS_PER_WINDOW = 3;

/**
 * F0 by Praat's autocorrelation method (Boersma 1993): Hann-windowed frames of three longest periods
 * (40 ms at 75 Hz), autocorrelation divided by the window's, up to 15 candidates per frame with sinc
 * refinement, then the cheapest path through voicing, octave-jump and voiced/unvoiced costs. Frames are
 * placed as Praat places them (centred in the signal), so with the same options the track lines up with
 * Praat's frame for frame. A signal shorter than one window gives an empty track.
 */
export function pitchTrack(pcm: Float32Array, sampleRate: number, options: PitchOptions = {}): PitchTrack {
  const o = { ...PITCH_DEFAULTS, ...definedOnly(options) };
  if (!(sampleRate > 0)) throw new Error(`sample rate must be positive, got ${sampleRate}`);
  if (!(o.floor > 0 && o.ceiling > o.floor)) throw new Error(`pitch range must satisfy 0 < floor < ceiling, got ${o.floor}–${o.ceiling} Hz`);
  const timeStep = options.timeStep ?? PERIODS_PER_WINDOW / o.floor / 4;
  if (!(timeStep > 0)) throw new Error(`time step must be positive, got ${timeStep}`);
  const candidates = analysePeriodicity(pcm, sampleRate, {
    method: 'ac',
    floor: o.floor,
    ceiling: o.ceiling,
    periodsPerWindow: PERIODS_PER_WINDOW,
    timeStep,
    maxCandidates: o.maxCandidates,
    voicingThreshold: o.voicingThreshold,
    octaveCost: o.octaveCost,
    keep: 'all',
    unvoicedAtOrBelow: alwaysUnvoicedBelow(o, timeStep),
  });
  const path = findPitchPath(candidates, o);
  const f0 = new Float32Array(candidates.frames);
  const strength = new Float32Array(candidates.frames);
  for (let f = 0; f < candidates.frames; f++) {
    const k = f * candidates.slots + path[f]!;
    const freq = candidates.frequency[k]!;
    if (freq > 0 && freq < candidates.ceiling) {
      f0[f] = freq;
      strength[f] = candidates.strength[k]!;
    }
  }
  return { timeStep, start: candidates.start, f0, strength };
}

/**
 * Intensity below which the path can never choose a voiced candidate, so the frame's correlation need not
 * be computed. A voiced candidate scores at most 1; making one frame voiced instead of unvoiced changes at
 * most two transitions, each by at most the voiced/unvoiced cost. So if the unvoiced score exceeds 1 by
 * more than twice that cost, unvoiced wins in every path: intensity < (voicingThreshold + 1 − 2·cost) ·
 * silenceThreshold / (1 + voicingThreshold). Slightly lowered to stay strict.
 */
function alwaysUnvoicedBelow(o: PathCosts, timeStep: number): number {
  if (o.silenceThreshold <= 0) return 0;
  const switchCost = o.voicedUnvoicedCost * (0.01 / timeStep);
  const bound = ((o.voicingThreshold + 1 - 2 * switchCost) * o.silenceThreshold) / (1 + o.voicingThreshold);
  return Math.max(0, bound * 0.999);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
