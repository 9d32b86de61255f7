import { describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/service/speech/types';
import { tileTranscript } from './tile-transcript';

const piece: Transcript = {
  language: 'en',
  duration: 10,
  text: 'hello there general',
  speakers: ['S1', 'S2'],
  engine: 'test',
  profiles: { S1: [1, 0], S2: [0, 1] },
  segments: [
    {
      id: 0,
      speaker: 'S1',
      start: 1,
      end: 3,
      text: ' hello there',
      avgLogprob: -0.2,
      words: [
        { word: 'hello', start: 1, end: 2, confidence: 0.9, speaker: 'S1' },
        { word: 'there', start: 2, end: 3, confidence: 0.8, speaker: 'S1' },
      ],
    },
    {
      id: 1,
      speaker: 'S2',
      start: 6,
      end: 9,
      text: 'general',
      avgLogprob: -0.1,
      words: [{ word: 'general', start: 6, end: 9, confidence: 0.7, speaker: 'S2' }],
    },
  ],
};

describe('tileTranscript', () => {
  it('repeats segments and words with the period as offset, renumbering ids', () => {
    const tiled = tileTranscript(piece, 30);
    expect(tiled.duration).toBe(30);
    expect(tiled.segments.map((s) => [s.id, s.speaker, s.start, s.end])).toEqual([
      [0, 'S1', 1, 3],
      [1, 'S2', 6, 9],
      [2, 'S1', 11, 13],
      [3, 'S2', 16, 19],
      [4, 'S1', 21, 23],
      [5, 'S2', 26, 29],
    ]);
    expect(tiled.segments[5]!.words).toEqual([
      { word: 'general', start: 26, end: 29, confidence: 0.7, speaker: 'S2' },
    ]);
    expect(tiled.speakers).toEqual(['S1', 'S2']);
    expect(tiled.profiles).toEqual(piece.profiles);
    expect(tiled.text).toBe('hello there general hello there general hello there general');
  });

  it('drops whole segments that would run past the duration', () => {
    const tiled = tileTranscript(piece, 18);
    expect(tiled.segments.map((s) => s.end)).toEqual([3, 9, 13]);
  });

  it('leaves the piece untouched', () => {
    tileTranscript(piece, 30);
    expect(piece.segments[1]!.start).toBe(6);
    expect(piece.segments[0]!.words[0]!.start).toBe(1);
  });
});
