import { describe, expect, it } from 'vitest';
import { SpeechSegmenter, type SpeechSegmenterOptions } from './segmenter';

const W = 0.1; // 100 ms windows keep the arithmetic readable

function run(probs: number[], options: SpeechSegmenterOptions = {}, offset = 0, duration?: number) {
  const seg = new SpeechSegmenter(W, options, offset);
  const spans = probs.flatMap((p) => seg.push(p));
  return [...spans, ...seg.finish(duration)];
}

const noPad = { speechPadSeconds: 0, minSilenceSeconds: 0.3, minSpeechSeconds: 0.25 };

describe('SpeechSegmenter', () => {
  it('finds nothing in silence', () => {
    expect(run(new Array(50).fill(0.01))).toEqual([]);
  });

  it('opens at the threshold and closes after enough silence below the lower threshold', () => {
    const probs = [0, 0, 0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0];
    expect(run(probs, noPad)).toEqual([{ start: 0.2, end: 0.6 }]);
  });

  it('applies hysteresis: values between the thresholds keep speech going but never start it', () => {
    const probs = [0.4, 0.4, 0.9, 0.4, 0.4, 0.4, 0.9, 0.1, 0.1, 0.1, 0.4, 0.4];
    expect(run(probs, noPad)).toEqual([{ start: 0.2, end: 0.7 }]);
  });

  it('bridges pauses shorter than the minimum silence', () => {
    const probs = [0.9, 0.9, 0.9, 0.1, 0.1, 0.9, 0.9, 0.9, 0, 0, 0, 0];
    expect(run(probs, noPad)).toEqual([{ start: 0, end: 0.8 }]);
  });

  it('drops blips shorter than the minimum speech', () => {
    const probs = [0, 0.9, 0.9, 0, 0, 0, 0, 0.9, 0.9, 0.9, 0.9, 0, 0, 0];
    expect(run(probs, noPad)).toEqual([{ start: 0.7, end: 1.1 }]);
  });

  it('pads spans without crossing the previous span or the start of the file', () => {
    const probs = [0.9, 0.9, 0.9, 0, 0, 0, 0.9, 0.9, 0.9, 0, 0, 0, 0];
    const spans = run(probs, { ...noPad, speechPadSeconds: 0.2 });
    expect(spans).toEqual([
      { start: 0, end: 0.5 },
      { start: 0.5, end: 1.1 },
    ]);
  });

  it('closes speech that runs to the end at the true duration, and adds the offset', () => {
    const probs = [0, 0, 0.9, 0.9, 0.9, 0.9];
    expect(run(probs, { ...noPad, speechPadSeconds: 0.1 }, 10, 0.55)).toEqual([{ start: 10.1, end: 10.55 }]);
  });
});

describe('SpeechSegmenter.settledUntil', () => {
  it('trails the open speech start, or the position, by the padding', () => {
    const seg = new SpeechSegmenter(W, { ...noPad, speechPadSeconds: 0.1 }, 5);
    for (let i = 0; i < 10; i++) seg.push(0);
    expect(seg.settledUntil).toBeCloseTo(5.9, 6);
    for (let i = 0; i < 10; i++) seg.push(0.9);
    expect(seg.settledUntil).toBeCloseTo(5.9, 6);
    for (let i = 0; i < 5; i++) seg.push(0);
    expect(seg.settledUntil).toBeCloseTo(7.4, 6);
  });
});
