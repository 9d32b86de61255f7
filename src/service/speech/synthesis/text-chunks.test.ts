import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { speechChunks } from './text-chunks';

describe('speechChunks', () => {
  it('streams by sentence, keeping short ones with the next', () => {
    expect(speechChunks('Hello. This is the first real sentence of the text! And "this" is the second one?  Yes.')).toEqual([
      'Hello. This is the first real sentence of the text!',
      'And "this" is the second one? Yes.',
    ]);
  });

  it('cuts an over-long sentence at a comma, else at a space', () => {
    const long = `${'word '.repeat(30).trim()}, ${'more '.repeat(30).trim()}.`;
    const pieces = speechChunks(long, { maxChars: 200 });
    expect(pieces[0]).toBe(`${'word '.repeat(30).trim()},`);
    for (const piece of speechChunks('a'.repeat(10) + ' ' + 'b'.repeat(500), { maxChars: 100 })) expect(piece.length).toBeLessThanOrEqual(100);
  });

  it('loses no words and respects the bound', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,12}[.,!?]?$/), { minLength: 1, maxLength: 120 }), (words) => {
        const text = words.join(' ');
        const pieces = speechChunks(text, { maxChars: 60 });
        expect(pieces.join(' ').split(/\s+/)).toEqual(text.split(/\s+/));
        for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(60);
      }),
    );
  });

  it('gives nothing for blank text', () => {
    expect(speechChunks('   \n ')).toEqual([]);
  });
});
