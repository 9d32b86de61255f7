import { describe, expect, it } from 'vitest';
import { decompose, linearGrammar, planAlignment } from './plan';

const dict = new Set([
  'wood',
  'cutters',
  'cut',
  'in',
  'the',
  'year',
  'fourteen',
  'sixty',
  'two',
  'by',
  'peter',
]);
const has = (w: string) => dict.has(w);

describe('planAlignment', () => {
  it('maps tokens to dictionary words, spelling numbers and splitting compounds', () => {
    expect(planAlignment('the Woodcutters, in 1462 by Peter Schoeffer —', has)).toEqual([
      { text: 'the', words: ['the'] },
      { text: 'Woodcutters,', words: ['wood', 'cutters'] },
      { text: 'in', words: ['in'] },
      { text: '1462', words: ['fourteen', 'sixty', 'two'] },
      { text: 'by', words: ['by'] },
      { text: 'Peter', words: ['peter'] },
      { text: 'Schoeffer', words: [] },
    ]);
  });

  it('decomposes only into known parts of at least three letters', () => {
    expect(decompose('woodcutters', has)).toEqual(['wood', 'cutters']);
    expect(decompose('wood', has)).toBeNull(); // a single part is not a decomposition
    expect(decompose('woodx', has)).toBeNull();
  });

  it('writes a linear FSG', () => {
    expect(linearGrammar(['go', 'forward'])).toBe(
      'FSG_BEGIN align\nNUM_STATES 3\nSTART_STATE 0\nFINAL_STATE 2\nTRANSITION 0 1 1.0 go\nTRANSITION 1 2 1.0 forward\nFSG_END\n',
    );
  });
});
