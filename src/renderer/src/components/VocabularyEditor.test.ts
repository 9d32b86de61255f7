import { describe, expect, it } from 'vitest';
import { parseTerms } from './VocabularyEditor';

describe('parseTerms', () => {
  it('takes one term per line or comma, trimmed, without blanks', () => {
    expect(parseTerms(' Siobhan McAllister\n\nTakeline, Okonkwo ,\n  ')).toEqual(['Siobhan McAllister', 'Takeline', 'Okonkwo']);
    expect(parseTerms('')).toEqual([]);
  });
});
