import { describe, expect, it } from 'vitest';
import { interview } from './fixtures/interview';
import { renderDiarizedJson } from './diarized-json';
import { exportInRange } from './range';
import type { ExportInput } from './types';

const parse = (input: ExportInput) => JSON.parse(renderDiarizedJson(input).body);

describe('renderDiarizedJson', () => {
  it('keeps segments in order and never overlapping, even where the lines’ words overlap, and leaves out blank lines', () => {
    const input: ExportInput = {
      ...interview,
      transcript: {
        speakers: ['S1', 'S2'],
        segments: [
          { id: 4, speaker: 'S1', start: 1, end: 3.2, text: 'First line.' },
          { id: 5, speaker: 'S2', start: 3, end: 5, text: '  ' },
          { id: 6, speaker: 'S2', start: 3, end: 5, text: 'Second line. ' },
        ],
      },
    };
    const doc = parse(input);
    expect(doc.segments.map((s: { id: string; start: number; end: number; text: string }) => [s.id, s.start, s.end, s.text])).toEqual([
      ['seg_4', 1, 3.2, 'First line.'],
      ['seg_6', 3.2, 5, 'Second line.'],
    ]);
    expect(doc.text).toBe('First line. Second line.');
    expect(doc.duration).toBe(12.5);
    expect(doc.usage).toEqual({ type: 'duration', seconds: 13 });
  });

  it('of a part: the lines inside it and the part’s duration', () => {
    const doc = parse(exportInRange(interview, { start: 2.4, end: 4.3 }));
    expect(doc.duration).toBeCloseTo(1.9, 9);
    expect(doc.usage.seconds).toBe(2);
    expect(doc.segments.map((s: { id: string }) => s.id)).toEqual(['seg_1']);
  });
});
