import { describe, expect, it } from 'vitest';
import { scoreSentenceEnds, sentenceEndWords, sumSentenceEnds } from './sentence-ends';

describe('sentenceEndWords', () => {
  it('marks the last word of every sentence but the text’s last', () => {
    expect(sentenceEndWords('Blows were struck. And fights "often" ensued! Why? Yes.')).toEqual({
      words: ['blows', 'were', 'struck', 'and', 'fights', 'often', 'ensued', 'why', 'yes'],
      ends: [2, 6, 7],
    });
    expect(sentenceEndWords('No end here, only a comma')).toEqual({ words: ['no', 'end', 'here', 'only', 'a', 'comma'], ends: [] });
    expect(sentenceEndWords('')).toEqual({ words: [], ends: [] });
  });

  it('does not end a sentence at a title or an initial', () => {
    expect(sentenceEndWords('The Hon. H. G. Bennet met Mr. Newman. He left.').ends).toEqual([7]);
  });

  it('counts a number spelled as several words once, at its last word', () => {
    expect(sentenceEndWords('It cost 25. Then it fell.').ends).toEqual([3]);
  });
});

describe('scoreSentenceEnds', () => {
  const ref = 'Quarreling among the debtors was not unfrequent. Blows were struck, and fights often ensued.';

  it('finds an end written where the reference has one, whatever the case and commas', () => {
    expect(scoreSentenceEnds(ref, 'Quarreling among the debtors was not frequent. Blows were struck and fights often ensued.')).toEqual({
      referenceEnds: 1,
      found: 1,
      hypothesisEnds: 1,
      falseEnds: 0,
    });
  });

  it('counts a missed end and a false one', () => {
    expect(scoreSentenceEnds(ref, 'Quarreling among the debtors was not unfrequent blows were struck. And fights often ensued.')).toEqual({
      referenceEnds: 1,
      found: 0,
      hypothesisEnds: 1,
      falseEnds: 1,
    });
  });

  it('forgives an end one word off when the words around it were misrecognised, not two', () => {
    const hyp = (text: string) => scoreSentenceEnds(ref, text).found;
    // "unfrequent" recognised as two words: the end lands on the inserted one.
    expect(hyp('Quarreling among the debtors was not un frequent. Blows were struck and fights often ensued.')).toBe(1);
    expect(hyp('Quarreling among the debtors was. Not unfrequent blows were struck and fights often ensued.')).toBe(0);
  });

  it('matches each reference end once', () => {
    const s = scoreSentenceEnds('One two. Three four.', 'One. Two. Three four.');
    expect(s).toEqual({ referenceEnds: 1, found: 1, hypothesisEnds: 2, falseEnds: 1 });
    expect(sumSentenceEnds([s, s])).toEqual({ referenceEnds: 2, found: 2, hypothesisEnds: 4, falseEnds: 2 });
  });
});
