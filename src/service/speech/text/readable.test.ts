import { describe, expect, it } from 'vitest';
import type { RecognizedSegment, RecognizedWord } from '../types';
import { writtenForms } from './casing';
import { SentenceWriter } from './readable';

const w = (word: string, start: number, end: number): RecognizedWord => ({ word, start, end, confidence: 0.9 });
const seg = (...words: RecognizedWord[]): RecognizedSegment => ({
  start: words[0]!.start,
  end: words.at(-1)!.end,
  text: words.map((x) => x.word).join(' '),
  words,
  avgLogprob: -0.2,
});

describe('SentenceWriter', () => {
  it('writes chunks in order, carrying the open sentence across chunk boundaries', () => {
    const writer = new SentenceWriter(writtenForms(['Call Siobhan']));
    const first = writer.write(
      [seg(w('i', 0, 0.2), w('think', 0.25, 0.5), w('so', 0.55, 0.8)), seg(w('siobhan', 1.9, 2.4), w('said', 2.45, 2.8))],
      [0, 0, 3, null, 0.5],
      3.3,
    );
    // "so" falls and is followed by 1.1 s: sentence end; "said" has 0.5 s to the next chunk and stays level: comma.
    expect(first.map((s) => s.text)).toEqual(['I think so.', 'Siobhan said,']);
    expect(first[1]!.words.map((x) => x.word)).toEqual(['Siobhan', 'said,']);
    expect(first[1]!.words[0]!.start).toBe(1.9);
    const second = writer.write([seg(w('it', 3.3, 3.5), w('works', 3.55, 4.0))], [0, 2], null);
    expect(second.map((s) => s.text)).toEqual(['it works.']);
  });

  it('leaves a segment without words as it is', () => {
    const writer = new SentenceWriter();
    const bare: RecognizedSegment = { start: 0, end: 1, text: 'hello', words: [], avgLogprob: 0 };
    expect(writer.write([bare], [], null)).toEqual([bare]);
  });
});
