import { describe, expect, it } from 'vitest';
import { contextScores, paceBy, summariseContext, type ContextLine, type Reading } from './context-score';

/** A line of 5 s at `rate` syllables/s, by both counts unless told otherwise. */
const line = (sentence: string, tempo: number, rate: number, o: Partial<ContextLine> = {}): ContextLine => ({
  speaker: 'S1',
  syllables: rate * 5,
  nuclei: rate * 5 * 0.8,
  articulation_seconds: 5,
  sentence,
  tempo,
  ...o,
});

const reading = (half: string, tempo: number, target: ContextLine[]): Reading => ({
  reader: 'r',
  half,
  target: 'x',
  tempo,
  lines: [line('a', 1, 4), line('b', 1, 4), ...target, line('c', 1, 4), line('d', 1, 4)],
});

describe('bench/pace in context', () => {
  it('reads the changed sentence against the untouched ones by each method', () => {
    // The recognizer lost a sixth of the sped sentence's words; the signal kept them.
    const r = reading('test', 1.3, [line('x', 1.3, 5.2, { syllables: 5.2 * 5 * (5 / 6) })]);
    expect(paceBy(r.lines, 'dictionary')[2]).toBeCloseTo(1.3 * (5 / 6), 3);
    expect(paceBy(r.lines, 'nuclei')[2]).toBeCloseTo(1.3, 3);
    expect(paceBy(r.lines, 'larger')[2]).toBeCloseTo(1.3, 3);
    expect(paceBy(r.lines, 'mean')[2]).toBeCloseTo(1.3 * Math.sqrt(5 / 6), 3);
    // Pooled with the line itself, the sped sentence reads lower.
    expect(paceBy(r.lines, 'before')[2]!).toBeLessThan(paceBy(r.lines, 'dictionary')[2]!);
  });

  it('scores a split sentence as the whole it is, and counts labels on changed and untouched lines', () => {
    const r = reading('test', 1.3, [line('x', 1.3, 5.2, { articulation_seconds: 2.5, syllables: 13, nuclei: 10.4 }), line('x', 1.3, 5.2, { articulation_seconds: 2.5, syllables: 13, nuclei: 10.4 })]);
    const [s] = contextScores([r], 'nuclei');
    expect(s).toMatchObject({ tempo: 1.3, readings: 1, beyond15: 1, labelled: 1, falseLabels: 0, untouchedLines: 4 });
    // Each half reads against the other lines, the sentence's other (sped) half among them.
    const expected = 4.16 / ((4 * 16 + 10.4) / 22.5);
    expect(s!.medianPace).toBeCloseTo(expected, 3);
    const table = summariseContext([r, { ...r, half: 'tune' }]);
    const cells = `1 | ${expected.toFixed(3)} | 100 % | 100 % | 0 % of 4`;
    expect(table).toContain(`| nuclei | 1.3× | ${cells} | ${cells} |`);
  });
});
