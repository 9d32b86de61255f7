import { describe, expect, it } from 'vitest';
import { baseWord, isFiller, parseCtm, parseHypsegLine } from './output';

describe('pocketsphinx_batch output', () => {
  it('parses a hypseg line into tokens with inclusive frame ranges', () => {
    const u = parseHypsegLine(
      'u1 S 0 T -2853 A -2695 L -158 0 -61440 0 <s> 3 -2580480 -849 resulting 66 -587776 -524288 <sil> 87 -369664 -274 the(2) 115',
    );
    expect(u.uttid).toBe('u1');
    expect(u.totalScore).toBe(-2853);
    expect(u.tokens.map((t) => [t.token, t.startFrame, t.endFrame])).toEqual([
      ['<s>', 0, 2],
      ['resulting', 3, 65],
      ['<sil>', 66, 86],
      ['the(2)', 87, 115],
    ]);
    expect(u.tokens[1]!.languageScore).toBe(-849);
    expect(() => parseHypsegLine('garbage')).toThrow();
  });

  it('parses ctm lines and clamps posteriors', () => {
    const words = parseCtm('u2 1 0.03 0.62 resulting 0.041\nu2 1 0.87 0.11 in 1.000\n\n');
    expect(words).toEqual([
      { uttid: 'u2', start: 0.03, duration: 0.62, word: 'resulting', confidence: 0.041 },
      { uttid: 'u2', start: 0.87, duration: 0.11, word: 'in', confidence: 1 },
    ]);
  });

  it('recognises fillers and alternate pronunciations', () => {
    expect(['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++BREATH++'].every(isFiller)).toBe(true);
    expect(isFiller('the(2)')).toBe(false);
    expect(baseWord('the(2)')).toBe('the');
    expect(baseWord('with')).toBe('with');
  });
});
