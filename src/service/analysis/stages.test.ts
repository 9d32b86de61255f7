import { describe, expect, it } from 'vitest';
import { overallProgress, STAGES } from './stages';

describe('analysis stages', () => {
  it('weights add up to one and progress grows through the stages', () => {
    expect(STAGES.reduce((s, x) => s + x.weight, 0)).toBeCloseTo(1, 10);
    let last = -1;
    for (const s of STAGES) {
      for (const f of [0, 0.5, 1]) {
        const p = overallProgress(s.name, f);
        expect(p).toBeGreaterThanOrEqual(last);
        last = p;
      }
    }
    expect(overallProgress('summary', 1)).toBeCloseTo(1, 10);
    expect(STAGES.map((s) => s.name).slice(-5)).toEqual(['quality', 'listening', 'speakers', 'moments', 'summary']);
  });
});
