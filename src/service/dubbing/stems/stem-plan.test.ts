import { describe, expect, it } from 'vitest';
import { fileSafe, owners, stemPlan } from './stem-plan';

describe('stemPlan', () => {
  const lines = [
    { id: 1, speaker: 'S2', start: 1, end: 2 },
    { id: 2, speaker: 'S1', start: 1.5, end: 3 },
    { id: 3, speaker: 'S1', start: 5, end: 6 },
  ];

  it("gives each frame of a line to its speaker, overlaps to the line that starts first, and widens a line to its render's region", () => {
    const plan = stemPlan(lines, { 3: { region: { start_frame: 48, end_frame: 70 } } }, 10, 100);
    expect(plan.speakers.map((s) => s.id)).toEqual(['S1', 'S2']);
    expect(plan.runs).toEqual([
      { start: 10, end: 20, speaker: 1 },
      { start: 20, end: 30, speaker: 0 },
      { start: 48, end: 70, speaker: 0 },
    ]);
    expect([...owners(plan.runs, 18, 4)]).toEqual([1, 1, 0, 0]);
    expect([...owners(plan.runs, 95, 5)]).toEqual([-1, -1, -1, -1, -1]);
  });

  it('clamps regions to the file and names speakers safely and uniquely', () => {
    const plan = stemPlan([{ id: 1, speaker: 'S1', start: 9, end: 20 }, { id: 2, speaker: 'S2', start: 0, end: 1 }, { id: 3, speaker: 'S3', start: 1, end: 2 }], {}, 10, 100, {
      S1: 'Zoë / Narrator',
      S2: 'Zoe Narrator',
      S3: '..',
    });
    expect(plan.runs.at(-1)).toEqual({ start: 90, end: 100, speaker: 0 });
    expect(plan.speakers.map((s) => s.fileName)).toEqual(['speaker-Zoe-Narrator.wav', 'speaker-Zoe-Narrator-2.wav', 'speaker-speaker.wav']);
    expect(fileSafe('')).toBe('speaker');
  });
});
