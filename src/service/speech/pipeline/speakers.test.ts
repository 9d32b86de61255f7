import { describe, expect, it } from 'vitest';
import type { RecognizedSegment, SpeakerTurn } from '../types';
import { assignSpeakers, speakerAt } from './speakers';

function seg(words: [string, number, number][], avgLogprob = -0.5): RecognizedSegment {
  return {
    start: words[0]![1],
    end: words.at(-1)![2],
    text: words.map((w) => w[0]).join(' '),
    words: words.map(([word, start, end]) => ({ word, start, end, confidence: 0.9 })),
    avgLogprob,
  };
}

const turns: SpeakerTurn[] = [
  { start: 0, end: 3, speaker: 'S1' },
  { start: 3, end: 6, speaker: 'S2' },
  { start: 8, end: 10, speaker: 'S1' },
];

describe('speakerAt', () => {
  it('picks the speaker with the most overlap, else the nearest turn', () => {
    expect(speakerAt({ start: 2.5, end: 4 }, turns)).toBe('S2');
    expect(speakerAt({ start: 6.5, end: 7 }, turns)).toBe('S2');
    expect(speakerAt({ start: 7.5, end: 7.9 }, turns)).toBe('S1');
    expect(speakerAt({ start: 1, end: 2 }, [])).toBe('S1');
  });
});

describe('assignSpeakers', () => {
  it('splits a segment where the speaker changes and numbers segments from 0', () => {
    const out = assignSpeakers(
      [
        seg([
          ['hello', 1, 1.5],
          ['there', 1.6, 2.5],
          ['hi', 3.2, 3.6],
          ['again', 3.7, 4.2],
        ]),
        seg([['bye', 8.5, 9]]),
      ],
      turns,
    );
    expect(out.segments.map((s) => [s.id, s.speaker, s.text, s.start, s.end])).toEqual([
      [0, 'S1', 'hello there', 1, 2.5],
      [1, 'S2', 'hi again', 3.2, 4.2],
      [2, 'S1', 'bye', 8.5, 9],
    ]);
    expect(out.segments[1]!.words.every((w) => w.speaker === 'S2')).toBe(true);
    expect(out.speakers).toEqual(['S1', 'S2']);
  });

  it('renumbers speakers in order of first appearance in the transcript', () => {
    const t: SpeakerTurn[] = [
      { start: 0, end: 1, speaker: 'S1' }, // says nothing the recognizer kept
      { start: 1, end: 5, speaker: 'S2' },
      { start: 5, end: 9, speaker: 'S3' },
    ];
    const out = assignSpeakers([seg([['a', 6, 7]]), seg([['b', 2, 3]])], t);
    expect(out.segments.map((s) => s.speaker)).toEqual(['S1', 'S2']);
    expect(out.relabel.get('S3')).toBe('S1');
    expect(out.relabel.get('S2')).toBe('S2');
  });

  it('absorbs a lone short word flipped by diarization noise', () => {
    const t: SpeakerTurn[] = [
      { start: 0, end: 1.9, speaker: 'S1' },
      { start: 1.9, end: 2.2, speaker: 'S2' },
      { start: 2.2, end: 5, speaker: 'S1' },
    ];
    const out = assignSpeakers(
      [
        seg([
          ['one', 1, 1.8],
          ['two', 1.95, 2.15],
          ['three', 2.3, 3],
        ]),
      ],
      t,
    );
    expect(out.segments).toHaveLength(1);
    expect(out.segments[0]!.text).toBe('one two three');
  });

  it('keeps whole segments (majority speaker) when splitting is off', () => {
    const out = assignSpeakers(
      [
        seg([
          ['a', 2, 2.9],
          ['b', 3.0, 3.5],
        ]),
      ],
      turns,
      { splitOnSpeakerChange: false },
    );
    expect(out.segments).toHaveLength(1);
    expect(out.segments[0]!.speaker).toBe('S1');
  });

  it('labels everything S1 without turns', () => {
    const out = assignSpeakers([seg([['a', 2, 2.9]])], []);
    expect(out.speakers).toEqual(['S1']);
  });
});
