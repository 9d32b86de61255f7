import type { RecognizedSegment } from '../types';
import { caseWord } from './casing';
import { sentenceMarks } from './sentences';

/**
 * Turns a recognizer's bare lower-case words into text, chunk by chunk in time order (so streamed segments
 * read the same as the final transcript): punctuation from sentences.ts, case from casing.ts. Each word
 * carries its written form (`Hello,`), and a segment's text is its words joined, so exports, edits and
 * the analysis (which finds sentence ends from the words' punctuation) all see the same text.
 */
export class SentenceWriter {
  /** True while a sentence is open (its first word already written). */
  private open = false;

  constructor(private readonly forms: ReadonlyMap<string, string> = new Map()) {}

  /**
   * `falls[i]` is the pitch cue for the i-th word over all `segments` (pitch-cues.ts); `nextStart` is when
   * the next speech starts, null when nothing follows.
   */
  write(
    segments: readonly RecognizedSegment[],
    falls: readonly (number | null)[],
    nextStart: number | null,
  ): RecognizedSegment[] {
    const words = segments.flatMap((s) => s.words);
    const marks = sentenceMarks(
      words.map((w, i) => ({ word: w.word, start: w.start, end: w.end, fall: falls[i] ?? null })),
      nextStart,
    );
    let k = 0;
    return segments.map((segment) => {
      if (segment.words.length === 0) return segment;
      const written = segment.words.map((w) => {
        const mark = marks[k++]!;
        const word = caseWord(w.word, !this.open, this.forms) + mark;
        this.open = mark !== '.';
        return { ...w, word };
      });
      return { ...segment, words: written, text: written.map((w) => w.word).join(' ') };
    });
  }
}
