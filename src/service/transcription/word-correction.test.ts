import { describe, expect, it } from 'vitest';
import type { RecognizedWord } from '../speech/types';
import { fitAligned, matchWords, planCorrection, spokenKey, spreadByWeight, writtenWords } from './word-correction';

const timed = (text: string, start = 1, step = 0.4, gap = 0.1): RecognizedWord[] =>
  text.split(' ').map((word, i) => ({ word, start: start + i * step, end: start + i * step + step - gap, confidence: 0.5 + i / 100 }));

describe('word correction plan', () => {
  it('reads written words, keeping punctuation on its word', () => {
    expect(writtenWords('  Hello ,  world — again. ')).toEqual(['Hello,', 'world—', 'again.']);
    expect(writtenWords('" quoted')).toEqual(['"quoted']);
    expect(writtenWords(' — ')).toEqual([]);
  });

  it('compares words by how they sound, not by case, punctuation or digits', () => {
    expect(spokenKey('Hello,')).toBe(spokenKey('hello'));
    expect(spokenKey('1455')).toBe(spokenKey('fourteen fifty-five'));
    expect(matchWords(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'e'])).toEqual([
      [0, 0],
      [2, 2],
      [3, 3],
    ]);
  });

  it('keeps every unchanged word’s timing and confidence exactly, taking its new written form', () => {
    const old = timed('the show on starts at nine');
    const plan = planCorrection(old, writtenWords('The Siobhan starts at nine.'), { start: 1, end: 3.5 });
    expect(plan.words.map((w) => w && w.word)).toEqual(['The', null, 'starts', 'at', 'nine.']);
    for (const [j, i] of [
      [0, 0],
      [2, 3],
      [3, 4],
      [4, 5],
    ] as const) {
      expect(plan.words[j]).toEqual({ ...old[i], word: plan.words[j]!.word });
    }
    // The changed word's gap runs from the kept word before it to the kept word after it.
    expect(plan.gaps).toEqual([{ from: 1, to: 2, before: 0, after: 2, window: { start: old[0]!.end, end: old[3]!.start } }]);
    expect(plan.retimedKept).toEqual([]);
  });

  it('gives words at the line’s edges the line’s edges as their window', () => {
    const old = timed('a b c');
    const plan = planCorrection(old, ['x', 'b', 'y'], { start: 0.8, end: 2.4 });
    expect(plan.gaps.map((g) => [g.from, g.to, g.before, g.after, g.window])).toEqual([
      [0, 1, null, 1, { start: 0.8, end: old[1]!.start }],
      [2, 3, 1, null, { start: old[1]!.end, end: 2.4 }],
    ]);
  });

  it('keeps the words outside a word range by position', () => {
    const old = timed('a b a b');
    // Only words 1–2 are replaced; LCS over the whole line could have matched the outer "a" differently.
    const plan = planCorrection(old, ['a', 'a', 'b'], { start: 1, end: 2.6 }, { keepBefore: 1, keepAfter: 1 });
    expect(plan.keptFrom).toEqual([0, 2, 3]);
    expect(plan.gaps).toEqual([]);
  });

  it('an insertion between words that touch takes in the longer neighbour, which is retimed with it', () => {
    const old: RecognizedWord[] = [
      { word: 'big', start: 1, end: 1.3, confidence: 0.9 },
      { word: 'dog', start: 1.3, end: 1.8, confidence: 0.8 },
    ];
    const plan = planCorrection(old, ['big', 'red', 'dog'], { start: 1, end: 1.8 });
    expect(plan.retimedKept).toEqual([2]);
    expect(plan.releasedFrom).toEqual([null, null, 1]);
    expect(plan.gaps).toEqual([{ from: 1, to: 3, before: 0, after: null, window: { start: 1.3, end: 1.8 } }]);
    expect(plan.words[0]).toEqual(old[0]);
  });
});

describe('fitting times into a gap', () => {
  it('clips aligned times to the window, in order, never overlapping', () => {
    const window = { start: 2, end: 3 };
    const spans = fitAligned(
      [
        { start: 1.9, end: 2.4 },
        { start: 2.3, end: 2.7 },
        { start: 2.8, end: 3.2 },
      ],
      3,
      window,
    )!;
    expect(spans).toEqual([
      { start: 2, end: 2.4 },
      { start: 2.4, end: 2.7 },
      { start: 2.8, end: 3 },
    ]);
  });

  it('refuses times it cannot use', () => {
    expect(fitAligned(null, 1, { start: 0, end: 1 })).toBeNull();
    expect(fitAligned([{ start: 0, end: 1 }], 2, { start: 0, end: 1 })).toBeNull();
    // Wholly outside the window.
    expect(fitAligned([{ start: 1.5, end: 1.8 }], 1, { start: 0, end: 1 })).toBeNull();
  });

  it('spreads by syllables when alignment failed: ordered, contiguous, filling the window', () => {
    const spans = spreadByWeight(['a', 'television', 'set'], { start: 1, end: 2.4 });
    expect(spans[0]!.start).toBe(1);
    expect(spans.at(-1)!.end).toBe(2.4);
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBe(spans[i - 1]!.end);
    // Four syllables against one: "television" gets the most time.
    expect(spans[1]!.end - spans[1]!.start).toBeGreaterThan(3 * (spans[0]!.end - spans[0]!.start));
  });
});
