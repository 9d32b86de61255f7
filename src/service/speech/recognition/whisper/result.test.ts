import { describe, expect, it } from 'vitest';
import { bareWord, toRecognizedSegments, type WhisperSegment, type WhisperToken } from './result';

const tok = (text: string, p: number, from?: number, to?: number, id = 1000): WhisperToken => ({ text, id, p, from, to });

describe('toRecognizedSegments (whisper.cpp detail output → recognizer segments)', () => {
  const segment: WhisperSegment = {
    from: 500,
    to: 2600,
    text: ' Hello, Ada Lovelace.',
    tokens: [
      tok('[_BEG_]', 0.9, 500, 500, 50363),
      tok(' Hello', 0.9, 500, 900),
      tok(',', 0.8, 900, 950),
      tok(' Ada', 0.6, 1000, 1300),
      tok(' Love', 0.5, 1300, 1700),
      tok('lace', 0.7, 1700, 2100),
      tok('.', 0.95, 2100, 2200),
      tok('[_TT_130]', 0.5, 2600, 2600, 50494),
    ],
  };

  it('groups tokens into words at leading spaces, strips punctuation and keeps the segment text', () => {
    const [s] = toRecognizedSegments([segment]);
    expect(s!.text).toBe('Hello, Ada Lovelace.');
    expect(s!.words.map((w) => w.word)).toEqual(['Hello', 'Ada', 'Lovelace']);
  });

  it("times words by their tokens on the recording's clock", () => {
    const [s] = toRecognizedSegments([segment], 10);
    expect(s!.start).toBe(10.5);
    expect(s!.end).toBe(12.6);
    expect(s!.words.map((w) => [w.start, w.end])).toEqual([
      [10.5, 10.95],
      [11, 11.3],
      [11.3, 12.2],
    ]);
  });

  it('a word is as confident as the mean of its tokens; avgLogprob averages the text tokens', () => {
    const [s] = toRecognizedSegments([segment]);
    expect(s!.words.map((w) => w.confidence)).toEqual([0.85, 0.6, 0.717]);
    const ps = [0.9, 0.8, 0.6, 0.5, 0.7, 0.95];
    expect(s!.avgLogprob).toBeCloseTo(ps.reduce((a, p) => a + Math.log(p), 0) / ps.length, 3);
  });

  it('keeps word times monotonic and inside the segment', () => {
    const [s] = toRecognizedSegments([
      { from: 0, to: 1000, text: ' one two', tokens: [tok(' one', 0.9, 100, 700), tok(' two', 0.9, 500, 1400)] },
    ]);
    expect(s!.words.map((w) => [w.start, w.end])).toEqual([
      [0.1, 0.7],
      [0.7, 1],
    ]);
  });

  it('shares the segment out by word length when tokens carry no times', () => {
    const [s] = toRecognizedSegments([{ from: 0, to: 900, text: ' ab abcd', tokens: [tok(' ab', 0.9), tok(' abcd', 0.9)] }]);
    expect(s!.words.map((w) => [w.start, w.end])).toEqual([
      [0, 0.3],
      [0.3, 0.9],
    ]);
  });

  it("takes a word's spelling from the segment text when a token splits a character", () => {
    const [s] = toRecognizedSegments([
      { from: 0, to: 800, text: ' Café ouvert', tokens: [tok(' Caf', 0.9, 0, 200), tok('\uFFFD', 0.9, 200, 300), tok(' ouvert', 0.9, 300, 800)] },
    ]);
    expect(s!.words.map((w) => w.word)).toEqual(['Café', 'ouvert']);
  });

  it('drops empty segments and annotations such as [BLANK_AUDIO] or (music)', () => {
    const out = toRecognizedSegments([
      { from: 0, to: 1000, text: ' [BLANK_AUDIO]', tokens: [tok(' [', 0.5), tok('BLANK', 0.5), tok('_AUDIO]', 0.5)] },
      { from: 1000, to: 2000, text: ' (music)', tokens: [tok(' (', 0.5), tok('music', 0.5), tok(')', 0.5)] },
      { from: 2000, to: 3000, text: ' ', tokens: [] },
      { from: 3000, to: 3500, text: ' -', tokens: [tok(' -', 0.5)] },
    ]);
    expect(out).toEqual([]);
  });

  it('bareWord keeps inner apostrophes, hyphens and decimal points', () => {
    expect(['"Don\'t', 'well-known,', '3.5.', '$100', '¿Qué?'].map(bareWord)).toEqual(["Don't", 'well-known', '3.5', '100', 'Qué']);
  });
});
