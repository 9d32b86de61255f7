import { describe, expect, it } from 'vitest';
import type { Transcript, TranscriptSegment } from '../speech/types';
import { SpeakerEditError } from './speaker-edits';
import { alignmentRequest, applyCorrections, correctLine, findMatches, gapTiming, replaceCorrections, TYPED_WORD_CONFIDENCE, widened } from './text-corrections';

function line(id: number, speaker: string, start: number, text: string): TranscriptSegment {
  const words = text.split(' ').map((word, i) => ({ word, start: start + i * 0.5, end: start + i * 0.5 + 0.4, confidence: 0.6, speaker }));
  return { id, speaker, start, end: words.at(-1)!.end, text, words, avgLogprob: -1 };
}

const transcript: Transcript = {
  language: 'en',
  duration: 20,
  engine: 'test',
  speakers: ['S1', 'S2'],
  segments: [line(0, 'S1', 0, 'Welcome to the show on Radio.'), line(1, 'S2', 5, 'Thanks, the show on air is fun.')],
  text: '',
};

/** Times every gap by spreading (as if alignment failed), so the pure writing can be checked. */
const spreadAll = (t: Transcript, corrections: ReturnType<typeof replaceCorrections>) =>
  applyCorrections(
    t,
    corrections,
    corrections.map((c) => c.plan.gaps.map((g) => gapTiming(c, g, null, 0))),
  );

describe('correcting a line', () => {
  it('replaces a line’s words; unchanged words keep their times, typed words are certain and fit their gap', () => {
    const c = correctLine(transcript, { segmentId: 0, text: 'Welcome to the Siobhan Radio.' });
    const { transcript: after, records } = spreadAll(transcript, [c]);
    const seg = after.segments[0]!;
    expect(seg.text).toBe('Welcome to the Siobhan Radio.');
    expect(seg.words.map((w) => w.word)).toEqual(['Welcome', 'to', 'the', 'Siobhan', 'Radio.']);
    expect(seg.words[4]).toEqual(transcript.segments[0]!.words[5]);
    expect(seg.words[3]).toMatchObject({ confidence: TYPED_WORD_CONFIDENCE, speaker: 'S1', start: seg.words[2]!.end, end: seg.words[4]!.start });
    expect(records).toEqual([{ segment_id: 0, before: 'Welcome to the show on Radio.', after: 'Welcome to the Siobhan Radio.', aligned: [], interpolated: [3], retimed_unchanged: [] }]);
    expect(after.segments[1]).toBe(transcript.segments[1]);
    expect(after.text).toBe(after.segments.map((s) => s.text).join(' '));
  });

  it('replaces a word range, and deletes one with empty text', () => {
    const c = correctLine(transcript, { segmentId: 1, wordStart: 1, wordEnd: 3, text: 'the Siobhan' });
    expect(c.next).toEqual(['Thanks,', 'the', 'Siobhan', 'air', 'is', 'fun.']);
    const gone = correctLine(transcript, { segmentId: 1, wordStart: 4, wordEnd: 5, text: '' });
    expect(gone.next).toEqual(['Thanks,', 'the', 'show', 'on', 'fun.']);
    expect(gone.plan.gaps).toEqual([]);
  });

  it('asks the aligner for the gap with its kept neighbours as context', () => {
    const c = correctLine(transcript, { segmentId: 0, text: 'Welcome to the Siobhan Radio.' });
    const request = alignmentRequest(transcript.segments[0]!, c, c.plan.gaps[0]!);
    expect(request.text).toBe('the Siobhan Radio.');
    expect(request.lead).toBe(1);
    expect(request.audio.start).toBeCloseTo(1 - 0.05);
    expect(request.audio.end).toBeCloseTo(2.9 + 0.05);
    // Aligned words are fitted into the window, between the kept ones.
    const timing = gapTiming(c, c.plan.gaps[0]!, [
      { start: 0.95, end: 1.4, confidence: 1 },
      { start: 1.35, end: 2.6, confidence: 0.9 },
      { start: 2.6, end: 2.9, confidence: 1 },
    ], 1);
    expect(timing).toEqual({ spans: [{ start: 1.4, end: 2.5 }], interpolated: false });
  });

  it('widens a failed gap by releasing the unchanged words either side, which keep their confidence', () => {
    const c = correctLine(transcript, { segmentId: 0, text: 'Welcome to the Siobhan Radio.' });
    const wide = widened(transcript, c, c.plan.gaps)!;
    expect(wide.plan.retimedKept).toEqual([2, 4]);
    expect(wide.plan.gaps).toEqual([{ from: 2, to: 5, before: 1, after: null, window: { start: transcript.segments[0]!.words[1]!.end, end: transcript.segments[0]!.end } }]);
    const { transcript: after, records } = spreadAll(transcript, [wide]);
    expect(records[0]!.retimed_unchanged).toEqual([2, 4]);
    expect(after.segments[0]!.words.map((w) => w.confidence)).toEqual([0.6, 0.6, 0.6, TYPED_WORD_CONFIDENCE, 0.6]);
    // Nothing left to release at the line's edge: no wider plan.
    expect(widened(transcript, wide, wide.plan.gaps.filter((g) => g.before === null))).toBeNull();
  });

  it('refuses input that would change nothing sensible', () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as SpeakerEditError).field;
      }
      return null;
    };
    expect(field(() => correctLine(transcript, { segmentId: 9, text: 'x' }))).toBe('segment_id');
    expect(field(() => correctLine(transcript, { segmentId: 0, text: ' — ' }))).toBe('text');
    expect(field(() => correctLine(transcript, { segmentId: 0, text: 'x', wordStart: 7 }))).toBe('word_start');
    expect(field(() => correctLine(transcript, { segmentId: 0, text: 'x', wordStart: 3, wordEnd: 2 }))).toBe('word_end');
    expect(field(() => correctLine(transcript, { segmentId: 0, text: '', wordStart: 0, wordEnd: 5 }))).toBe('text');
  });
});

describe('find and replace', () => {
  it('finds a phrase across word boundaries, by default ignoring case', () => {
    expect(findMatches(transcript, { find: 'SHOW  on', replace: 'Siobhan' })).toEqual([
      { segment_id: 0, word_start: 3, word_end: 4, before: 'show on', after: 'Siobhan' },
      { segment_id: 1, word_start: 2, word_end: 3, before: 'show on', after: 'Siobhan' },
    ]);
    expect(findMatches(transcript, { find: 'SHOW on', replace: 'x', matchCase: true })).toEqual([]);
  });

  it('respects whole words and keeps punctuation of touched words', () => {
    expect(findMatches(transcript, { find: 'on', replace: 'in', wholeWords: true }).map((m) => [m.segment_id, m.word_start])).toEqual([
      [0, 4],
      [1, 3],
    ]);
    expect(findMatches(transcript, { find: 'on', replace: 'in' })).toHaveLength(2);
    const [m] = findMatches(transcript, { find: 'radio', replace: 'TV' });
    expect(m).toEqual({ segment_id: 0, word_start: 5, word_end: 5, before: 'Radio.', after: 'TV.' });
  });

  it('rewrites every matching line and leaves the others alone', () => {
    const corrections = replaceCorrections(transcript, { find: 'show on', replace: 'Siobhan' });
    expect(corrections.map((c) => c.after)).toEqual(['Welcome to the Siobhan Radio.', 'Thanks, the Siobhan air is fun.']);
    const { transcript: after } = spreadAll(transcript, corrections);
    expect(after.text).toBe('Welcome to the Siobhan Radio. Thanks, the Siobhan air is fun.');
    expect(() => replaceCorrections({ ...transcript, segments: [line(0, 'S1', 0, 'um')] }, { find: 'um', replace: '' })).toThrow(SpeakerEditError);
  });
});
