import { computeMfcc } from '../../src/service/dsp/mfcc';
import type { Span } from '../../src/service/speech/types';

export interface EnergyVadOptions {
  /** dB above the file's noise floor (10th percentile of frame energy) that counts as speech. */
  marginDb?: number;
  /** Speech shorter than this (s) is dropped; silence shorter than `bridge` (s) is filled. */
  minSpeech?: number;
  bridge?: number;
}

/**
 * A plain energy VAD for the bench: a frame is speech when its energy is `marginDb` above the recording's
 * noise floor; short gaps are bridged and short blips dropped. Adapts to level, so quiet meeting mixes
 * are not lost.
 */
export function energySpans(pcm: Float32Array, options: EnergyVadOptions = {}): Span[] {
  const marginDb = options.marginDb ?? 18;
  const minSpeech = options.minSpeech ?? 0.2;
  const bridge = options.bridge ?? 0.6;
  const { logEnergy, hopSeconds } = computeMfcc(pcm, { coefficients: 2, melBands: 8 });
  const sorted = Float32Array.from(logEnergy).sort();
  const floor = sorted[Math.floor(sorted.length * 0.1)] ?? 0;
  const threshold = floor + (marginDb / 10) * Math.log(10);
  const spans: Span[] = [];
  let start = -1;
  for (let i = 0; i <= logEnergy.length; i++) {
    const speech = i < logEnergy.length && logEnergy[i]! > threshold;
    if (speech && start < 0) start = i;
    if (!speech && start >= 0) {
      const span = { start: start * hopSeconds, end: i * hopSeconds + 0.015 };
      const last = spans[spans.length - 1];
      if (last && span.start - last.end < bridge) last.end = span.end;
      else spans.push(span);
      start = -1;
    }
  }
  return spans.filter((s) => s.end - s.start >= minSpeech);
}
