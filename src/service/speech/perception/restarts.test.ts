import { describe, expect, it } from 'vitest';
import { findRestarts } from './restarts';

const words = (s: string) => s.split(' ').map((word) => ({ word }));

describe('restarts', () => {
  it('finds a word said twice and a phrase said again after a filler', () => {
    expect(findRestarts(words('I I think so'))).toEqual([{ first: 0, repeat: 1, words: 'I' }]);
    expect(findRestarts(words('so we went uh we went home'))).toEqual([{ first: 1, repeat: 4, words: 'we went' }]);
  });

  it('ignores case and punctuation, and finds nothing in a clean line', () => {
    expect(findRestarts(words('The, the house.'))).toEqual([{ first: 0, repeat: 1, words: 'The,' }]);
    expect(findRestarts(words('we went to the house and then home'))).toEqual([]);
  });

  it('prefers the longest repeat', () => {
    expect(findRestarts(words('in the in the end'))).toEqual([{ first: 0, repeat: 2, words: 'in the' }]);
  });
});
