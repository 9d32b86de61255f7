import { describe, expect, it } from 'vitest';
import type { SpeakerTurn, Transcript, TranscriptSegment } from '../speech/types';
import { diarizedExtents, renamedTurns } from './diarized-segments';

const seg = (id: number, start: number, end: number, speaker: string): TranscriptSegment => ({
  id,
  start,
  end,
  speaker,
  text: `line ${id}`,
  words: [],
  avgLogprob: 0,
});
const turn = (start: number, end: number, speaker: string): SpeakerTurn => ({ start, end, speaker });

describe('diarizedExtents', () => {
  it('keeps the words’ extents without turns', () => {
    expect(diarizedExtents([seg(0, 1, 2, 'S1'), seg(1, 3, 4, 'S2')], [])).toEqual([
      { start: 1, end: 2 },
      { start: 3, end: 4 },
    ]);
  });

  it('widens a segment to its own speaker’s turn', () => {
    expect(diarizedExtents([seg(0, 1.4, 2.6, 'S1')], [turn(0.9, 3.2, 'S1')])).toEqual([{ start: 0.9, end: 3.2 }]);
  });

  it('ignores other speakers’ turns', () => {
    expect(diarizedExtents([seg(0, 1.4, 2.6, 'S1')], [turn(0.5, 1.5, 'S2'), turn(1.5, 3, 'S1')])).toEqual([
      { start: 1.4, end: 3 },
    ]);
  });

  it('fills the pause between two lines of one turn once, and never overlaps the next line', () => {
    const turns = [turn(0, 5, 'S1'), turn(5, 8, 'S2')];
    expect(diarizedExtents([seg(0, 0.5, 1.5, 'S1'), seg(1, 2, 4.5, 'S1'), seg(2, 5.3, 7, 'S2')], turns)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 5 },
      { start: 5, end: 8 },
    ]);
  });

  it('never shrinks a segment below its own words', () => {
    // Words assigned to S1 run past the start of the next line (recognizer timing overlap).
    const out = diarizedExtents([seg(0, 1, 3.2, 'S1'), seg(1, 3, 4, 'S2')], [turn(1, 3, 'S1'), turn(3, 4.5, 'S2')]);
    expect(out[0]).toEqual({ start: 1, end: 3.2 });
    expect(out[1]!.start).toBe(3);
    expect(out[1]!.end).toBe(4.5);
  });

  it('leaves a turn without words to no segment', () => {
    const out = diarizedExtents([seg(0, 1, 2, 'S1'), seg(1, 6, 7, 'S1')], [turn(1, 2.5, 'S1'), turn(3, 5, 'S2'), turn(5.5, 7, 'S1')]);
    expect(out).toEqual([
      { start: 1, end: 2.5 },
      { start: 5.5, end: 7 },
    ]);
  });
});

describe('renamedTurns', () => {
  it('follows the known speakers’ names and leaves unheard voices alone', () => {
    const transcript = (speakers: string[]): Transcript => ({ language: 'en', duration: 5, text: '', segments: [], speakers, engine: 'x' });
    const turns = [turn(0, 1, 'S1'), turn(1, 2, 'S2'), turn(2, 3, 'S3')];
    expect(renamedTurns(turns, transcript(['S1', 'S2']), transcript(['Ana', 'S2']))).toEqual([
      turn(0, 1, 'Ana'),
      turn(1, 2, 'S2'),
      turn(2, 3, 'S3'),
    ]);
  });
});
