import { describe, expect, it } from 'vitest';
import type { Transcript, TranscriptSegment } from '../speech/types';
import { mergeSpeakers, newSpeakerLabel, reassignSpeaker, SpeakerEditError, splitSegment } from './speaker-edits';

function line(id: number, speaker: string, start: number, text: string): TranscriptSegment {
  const tokens = text.split(' ');
  return {
    id,
    speaker,
    start,
    end: start + tokens.length,
    text,
    avgLogprob: -0.2,
    words: tokens.map((t, i) => ({ word: t.replace(/[^\w']/g, '').toLowerCase(), start: start + i, end: start + i + 0.8, confidence: 0.9, speaker })),
  };
}

const transcript = (): Transcript => {
  const segments = [line(0, 'S1', 0, 'Hello there, Ada.'), line(1, 'S2', 4, 'Hi! How are you today?'), line(2, 'S1', 10, 'Fine, thanks.')];
  return {
    language: 'en',
    duration: 12,
    text: segments.map((s) => s.text).join(' '),
    segments,
    speakers: ['S1', 'S2'],
    engine: 'test',
    profiles: { S1: [1, 2], S2: [3, 4] },
  };
};

describe('speaker edits', () => {
  it('reassigns a whole line, words included', () => {
    const { transcript: t, touched } = reassignSpeaker(transcript(), { segmentId: 1, speaker: 'S1' });
    expect(t.segments[1]!.speaker).toBe('S1');
    expect(t.segments[1]!.words.every((w) => w.speaker === 'S1')).toBe(true);
    expect(t.speakers).toEqual(['S1']);
    expect(t.profiles).toEqual({ S1: [1, 2] });
    expect(touched).toEqual(['S2', 'S1']);
  });

  it('cuts a word range out of a line as its own line, keeping the text around it', () => {
    const { transcript: t } = reassignSpeaker(transcript(), { segmentId: 1, wordStart: 1, wordEnd: 3, speaker: 'S3' });
    expect(t.segments.map((s) => [s.id, s.speaker, s.text, s.start, s.end])).toEqual([
      [0, 'S1', 'Hello there, Ada.', 0, 3],
      [1, 'S2', 'Hi!', 4, 4.8],
      [2, 'S3', 'How are you', 5, 7.8],
      [3, 'S2', 'today?', 8, 9],
      [4, 'S1', 'Fine, thanks.', 10, 12],
    ]);
    expect(t.speakers).toEqual(['S1', 'S2', 'S3']);
    expect(t.text).toBe('Hello there, Ada. Hi! How are you today? Fine, thanks.');
  });

  it('a range at the start of a line makes two lines', () => {
    const { transcript: t } = reassignSpeaker(transcript(), { segmentId: 0, wordStart: 0, wordEnd: 1, speaker: 'S2' });
    expect(t.segments.slice(0, 2).map((s) => [s.speaker, s.text])).toEqual([
      ['S2', 'Hello there,'],
      ['S1', 'Ada.'],
    ]);
  });

  it('merges one speaker into another', () => {
    const { transcript: t, touched } = mergeSpeakers(transcript(), 'S2', 'S1');
    expect(t.segments.every((s) => s.speaker === 'S1' && s.words.every((w) => w.speaker === 'S1'))).toBe(true);
    expect(t.speakers).toEqual(['S1']);
    expect(touched).toEqual(['S1']);
  });

  it('splits a line at a word, both halves with the same speaker', () => {
    const { transcript: t } = splitSegment(transcript(), 1, 2);
    expect(t.segments.map((s) => [s.id, s.speaker, s.text])).toEqual([
      [0, 'S1', 'Hello there, Ada.'],
      [1, 'S2', 'Hi! How'],
      [2, 'S2', 'are you today?'],
      [3, 'S1', 'Fine, thanks.'],
    ]);
    expect(t.segments[2]!.start).toBe(6);
    expect(t.segments[1]!.end).toBe(5.8);
  });

  it('falls back to the words when the text does not split into them one to one', () => {
    const base = transcript();
    base.segments[2] = { ...base.segments[2]!, text: 'Fine,thanks.' };
    const { transcript: t } = splitSegment(base, 2, 1);
    expect(t.segments.slice(2).map((s) => s.text)).toEqual(['fine', 'thanks']);
  });

  it('refuses edits that make no sense, naming the field', () => {
    const t = transcript();
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof SpeakerEditError ? e.field : 'other';
      }
      return null;
    };
    expect(field(() => reassignSpeaker(t, { segmentId: 9, speaker: 'S1' }))).toBe('segment_id');
    expect(field(() => reassignSpeaker(t, { segmentId: 1, wordStart: 3, wordEnd: 1, speaker: 'S1' }))).toBe('word_end');
    expect(field(() => reassignSpeaker(t, { segmentId: 1, wordStart: 7, speaker: 'S1' }))).toBe('word_start');
    expect(field(() => reassignSpeaker(t, { segmentId: 1, speaker: 'S2' }))).toBe('speaker');
    expect(field(() => mergeSpeakers(t, 'S1', 'S1'))).toBe('into');
    expect(field(() => mergeSpeakers(t, 'S9', 'S1'))).toBe('from');
    expect(field(() => splitSegment(t, 1, 0))).toBe('word_index');
    expect(field(() => splitSegment(t, 1, 5))).toBe('word_index');
  });

  it('a new speaker gets the next free label', () => {
    expect(newSpeakerLabel(transcript())).toBe('S3');
    expect(newSpeakerLabel({ ...transcript(), speakers: ['S1', 'S4'] })).toBe('S5');
  });
});
