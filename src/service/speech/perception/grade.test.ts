import { describe, expect, it } from 'vitest';
import { deliveryFlags, deliveryGrade, deliveryScore, takeQuality } from './grade';

describe('delivery score and grade', () => {
  it('an even line scores 0.6 and reads good', () => {
    // 0.55 + 0.3·0.05 + 0.25·0.2 = 0.615
    const score = deliveryScore({ engagement: 0.55, confidence: 0.7 }, []);
    expect(score).toBe(0.62);
    expect(deliveryGrade(score, [])).toBe('good');
  });

  it('each label costs its penalty; emphatic gains', () => {
    const base = deliveryScore({ engagement: 0.55, confidence: 0.7 }, []);
    expect(deliveryScore({ engagement: 0.55, confidence: 0.7 }, ['rushed'])).toBeCloseTo(base - 0.12, 2);
    expect(deliveryScore({ engagement: 0.55, confidence: 0.7 }, ['mumbled', 'quiet'])).toBeCloseTo(base - 0.25, 2);
    expect(deliveryScore({ engagement: 0.55, confidence: 0.7 }, ['emphatic'])).toBeCloseTo(base + 0.05, 2);
    expect(deliveryScore({ engagement: 0, confidence: 0 }, ['mumbled', 'hesitant', 'flat'])).toBe(0);
  });

  it('grades: hesitant when labelled so, else weak under 0.45, great from 0.72', () => {
    expect(deliveryGrade(0.3, ['hesitant'])).toBe('hesitant');
    expect(deliveryGrade(0.44, ['flat'])).toBe('weak');
    expect(deliveryGrade(0.45, [])).toBe('good');
    expect(deliveryGrade(0.72, [])).toBe('great');
  });

  it('flags: labels as estimates, a long pause as measured, a restart as located', () => {
    expect(deliveryFlags(['rushed'], 1.6, 1)).toEqual([
      { type: 'rushed', source: 'estimate' },
      { type: 'long_pause', source: 'measured' },
      { type: 'restart', source: 'located' },
    ]);
    expect(deliveryFlags([], 1.4, 0)).toEqual([]);
  });

  it('take quality is the geometric mean of delivery and signal quality', () => {
    expect(takeQuality(0.64, 1)).toBe(0.8);
    expect(takeQuality(0.9, 0.1)).toBe(0.3);
  });
});
