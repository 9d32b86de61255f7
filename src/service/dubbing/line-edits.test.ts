import { describe, expect, it } from 'vitest';
import type { LineRender } from '../../shared/schemas';
import { dubLine as line, DUB_LINE_AT as NOW } from '../../../test/helpers/dub-lines';
import { mergeLines, splitLine } from './line-edits';
import { coveredByOther, lineState } from './line-rules';

describe('splitLine', () => {
  const l = line(4, 10, 14, 'one two three four');

  it('splits at a word in the gap before it; both parts keep the original under them and go back to todo', () => {
    const result = splitLine(l, l.words, { wordIndex: 2 }, 9, NOW);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const cut = (l.words[1]!.end + l.words[2]!.start) / 2;
    expect(result.first).toMatchObject({ id: 4, start: 10, end: cut, text: 'one two', originalText: 'one two', originalEnd: cut, reviewStatus: 'todo' });
    expect(result.second).toMatchObject({ id: 9, start: cut, end: 14, text: 'three four', originalText: 'three four', originalStart: cut, reviewStatus: 'todo' });
    expect(result.second.words.map((w) => w.word)).toEqual(['three', 'four']);
    expect(result.first.history).toEqual([{ op: 'split', at: NOW, from: [expect.objectContaining({ id: 4, text: 'one two three four', start: 10, end: 14 })] }]);
  });

  it('splits at a time by the words whose middle is before it', () => {
    const result = splitLine(l, l.words, { at: 12.4 }, 9, NOW);
    expect(result.ok && [result.first.text, result.second.text, result.first.end]).toEqual(['one two', 'three four', 12.4]);
  });

  it('needs both word and time when the text has no timings, and splits a corrected original in proportion', () => {
    const corrected = { ...l, text: 'uno dos tres cuatro cinco seis', words: [] };
    const alone = splitLine(corrected, null, { wordIndex: 3 }, 9, NOW);
    expect(alone.ok ? null : alone.issues).toMatchObject([{ loc: ['word_index'], type: 'no_word_timings' }]);
    const both = splitLine(corrected, null, { wordIndex: 3, at: 12 }, 9, NOW);
    expect(both.ok && [both.first.text, both.first.originalText, both.second.text, both.second.originalText]).toEqual(['uno dos tres', 'one two', 'cuatro cinco seis', 'three four']);
  });

  it('maps the cut onto the original timeline when the line was retimed', () => {
    const moved = { ...l, start: 11, end: 13 };
    const result = splitLine(moved, null, { wordIndex: 2, at: 12 }, 9, NOW);
    expect(result.ok && [result.first.originalEnd, result.second.originalStart]).toEqual([12, 12]);
  });

  it('refuses words out of range and times outside the line, located in the body', () => {
    const cases: Array<[Parameters<typeof splitLine>[2], string, string]> = [
      [{ wordIndex: 4 }, 'word_index', 'word_out_of_range'],
      [{ at: 10 }, 'at', 'outside_line'],
      [{ at: 14.5 }, 'at', 'outside_line'],
      [{ at: 10.2 }, 'at', 'no_words_on_one_side'],
      [{}, '', 'missing'],
    ];
    for (const [request, field, type] of cases) {
      const result = splitLine(l, l.words, request, 9, NOW);
      expect(result.ok ? null : result.issues[0], JSON.stringify(request)).toMatchObject({ loc: field ? [field] : [], type });
    }
  });
});

describe('mergeLines', () => {
  const lines = [line(1, 0, 2, 'a b'), line(2, 2.5, 4, 'c d'), line(3, 5, 6, 'e', { speaker: 'S2' })];

  it('joins a line and the next one, originals too, keeping both in its history', () => {
    const result = mergeLines(lines, lines[0]!, 2, NOW);
    expect(result.ok && result.merged).toMatchObject({ id: 1, start: 0, end: 4, text: 'a b c d', originalText: 'a b c d', originalEnd: 4, reviewStatus: 'todo' });
    expect(result.ok && result.merged.history[0]!.from.map((f) => f.id)).toEqual([1, 2]);
  });

  it('refuses a line that is not the next one, another speaker, and an unknown line', () => {
    expect(mergeLines(lines, lines[0]!, 3, NOW)).toMatchObject({ ok: false, issues: [{ type: 'not_next_line', ctx: { next: 2 } }] });
    expect(mergeLines(lines, lines[1]!, 3, NOW)).toMatchObject({ ok: false, issues: [{ type: 'speaker_mismatch' }] });
    expect(mergeLines(lines, lines[0]!, 7, NOW)).toMatchObject({ ok: false, issues: [{ type: 'line_not_found' }] });
    expect(mergeLines(lines, lines[2]!, 1, NOW)).toMatchObject({ ok: false, issues: [{ type: 'not_next_line' }] });
  });
});

describe('coveredByOther', () => {
  const render = (revision: number, start: number, end: number) => ({ revision, slot: { start, end } }) as LineRender;

  it('is true where a newer rendering of another line sounds under the line', () => {
    // Line 1 was voiced over 0–4 (revision 2), then split: its second part (line 5, 2–4) lies under it.
    const renders = { 1: render(2, 0, 4.2) };
    expect(coveredByOther({ id: 5, start: 2, end: 4 }, renders)).toBe(true);
    expect(coveredByOther({ id: 2, start: 4.3, end: 6 }, renders)).toBe(false);
    // Its own newer rendering wins over an older one of another line.
    expect(coveredByOther({ id: 5, start: 2, end: 4 }, { ...renders, 5: render(3, 2, 4) })).toBe(false);
    const state = lineState({ text: 'same', originalText: 'same', start: 2, end: 4 }, 'flite/rms', undefined, true);
    expect(state).toEqual({ state: 'corrected', needsRevoice: true });
  });
});
