import { describe, expect, it } from 'vitest';
import { assignTimes } from './timing';

describe('assignTimes', () => {
  const tokens = [
    { text: 'Peter', words: ['peter'] },
    { text: 'Schoeffer', words: [] },
    { text: 'in', words: ['in'] },
    { text: '1462', words: ['fourteen', 'sixty', 'two'] },
  ];

  it('takes decoded spans, interpolates out-of-vocabulary words with confidence 0', () => {
    const decoded = [
      { word: 'peter', start: 0.1, end: 0.5, confidence: 0.9 },
      { word: 'in', start: 1.3, end: 1.4, confidence: 1 },
      { word: 'fourteen', start: 1.4, end: 1.8, confidence: 0.8 },
      { word: 'sixty', start: 1.8, end: 2.1, confidence: 0.7 },
      { word: 'two', start: 2.1, end: 2.3, confidence: 1 },
    ];
    const silences = [{ start: 0.5, end: 0.6 }];
    const out = assignTimes(tokens, decoded, silences, 3);
    expect(out[0]).toEqual({ word: 'Peter', start: 0.1, end: 0.5, confidence: 0.9 });
    expect(out[1]).toEqual({ word: 'Schoeffer', start: 0.6, end: 1.3, confidence: 0 });
    expect(out[3]).toEqual({ word: '1462', start: 1.4, end: 2.3, confidence: 0.7 });
  });

  it('spreads words the decoder never reached over the rest of the audio', () => {
    const out = assignTimes(tokens, [{ word: 'peter', start: 0, end: 0.5, confidence: 1 }], [], 2);
    expect(out.slice(1).map((w) => w.confidence)).toEqual([0, 0, 0]);
    expect(out[1]!.start).toBe(0.5);
    expect(out[3]!.end).toBeCloseTo(2);
    // letters: Schoeffer 9, in 2, 1462 4 → proportional shares of 1.5 s
    expect(out[1]!.end - out[1]!.start).toBeCloseTo((1.5 * 9) / 15);
  });
});
