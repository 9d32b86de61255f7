/**
 * The analysis method's version and its stages, in the order they run. Bump the version when results
 * change (minor: new fields or better measures; major: a field changes meaning).
 */
export const ANALYSIS_VERSION = '1.3.0';

// Weights are each stage's share of the time on ../shared/audio/long (bench/analysis), so progress moves evenly.
export const STAGES = [
  /** The recording decoded to 16 kHz mono. */
  { name: 'decoding', weight: 0.01 },
  /** Where people speak (Silero VAD), for noise floors and speech levels. */
  { name: 'speech', weight: 0.05 },
  /** Audience events, music and ambience from the YAMNet tagger. */
  { name: 'events', weight: 0.04 },
  /** The noise floor and recording conditions (hum, clipping, noise, wind, reverb, off-mic). */
  { name: 'conditions', weight: 0.07 },
  /** Each line's pitch, voice, level, pauses and pace (kept back until the baselines are known). */
  { name: 'prosody', weight: 0.12 },
  /** Each speaker's baseline, and pace shifts between stretches of their speech. */
  { name: 'baselines', weight: 0.01 },
  /** Each line's quality (DNSMOS where installed) and ambience; lines are published here, one by one. */
  { name: 'quality', weight: 0.69 },
  /** How each line sounds: perception, delivery and emphasis from the listener; lines are published again, whole. */
  { name: 'listening', weight: 0.006 },
  /** Each speaker's profile and trajectory. */
  { name: 'speakers', weight: 0.001 },
  /** Moments worth a look: selects, unusable lines, trims. */
  { name: 'moments', weight: 0.001 },
  /** The written summary and watch-outs (and each speaker's summary). */
  { name: 'summary', weight: 0.002 },
] as const;

export type StageName = (typeof STAGES)[number]['name'];

/** Overall progress 0–1 of a run that is `fraction` of the way through `stage`. */
export function overallProgress(stage: StageName, fraction: number): number {
  let before = 0;
  for (const s of STAGES) {
    if (s.name === stage) return Math.min(1, before + s.weight * Math.min(1, Math.max(0, fraction)));
    before += s.weight;
  }
  return before;
}
