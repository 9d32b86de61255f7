import type { RecognizedSegment, RecognizedWord } from '../../types';

/** One token of a whisper.cpp segment as smart-whisper's `detail` format reports it (times in ms). */
export interface WhisperToken {
  text: string;
  id: number;
  /** The token's probability. */
  p: number;
  from?: number;
  to?: number;
}

export interface WhisperSegment {
  /** Milliseconds from the start of the audio handed to whisper. */
  from: number;
  to: number;
  text: string;
  tokens: WhisperToken[];
}

/** whisper.cpp prints its special tokens (timestamps, start/end of text) as `[_TT_150]`, `[_BEG_]`, `[_EOT_]`. */
function isSpecial(token: WhisperToken): boolean {
  return /^\[_[A-Za-z0-9_]*\]$/.test(token.text.trim());
}

/** A whole segment that is an annotation rather than speech: `[BLANK_AUDIO]`, `(music)`, `[Applause]`. */
function isAnnotation(text: string): boolean {
  return /^(\[[^\]]*\]|\([^)]*\)|\*[^*]*\*)(\s*(\[[^\]]*\]|\([^)]*\)|\*[^*]*\*))*$/.test(text.trim());
}

/** Word text as OpenAI's word timestamps give it: the spoken word without surrounding punctuation. */
export function bareWord(text: string): string {
  return text.trim().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

interface TokenWord {
  raw: string;
  from: number | undefined;
  to: number | undefined;
  probabilities: number[];
}

/** Tokens → words: a token that starts with a space starts a word; others (word pieces, punctuation) join it. */
function groupTokens(tokens: WhisperToken[]): TokenWord[] {
  const words: TokenWord[] = [];
  let current: TokenWord | null = null;
  for (const token of tokens) {
    if (current === null || /^\s/.test(token.text)) {
      current = { raw: token.text, from: token.from, to: token.to, probabilities: [token.p] };
      words.push(current);
    } else {
      current.raw += token.text;
      current.to = token.to ?? current.to;
      current.probabilities.push(token.p);
    }
  }
  return words.filter((w) => bareWord(w.raw) !== '');
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * whisper.cpp segments → the Recognizer's segments on the recording's clock (`offsetSeconds` added).
 *
 * - Words come from the tokens (a leading space starts a word). Their text is taken from the segment's text
 *   when both split into the same number of words, since a token can hold part of a multi-byte character;
 *   punctuation is stripped from words (segment text keeps whisper's casing and punctuation).
 * - A word's confidence is the mean probability of its tokens (openai-whisper's word probability); a
 *   segment's avgLogprob is the mean natural log of its text tokens' probabilities.
 * - Word times are whisper.cpp's token timestamps, made monotonic and kept inside the segment; where a
 *   token has none, the segment's time is shared out in proportion to the words' lengths.
 * - Segments with no words, or that are only an annotation such as `[BLANK_AUDIO]`, are dropped.
 */
export function toRecognizedSegments(segments: WhisperSegment[], offsetSeconds = 0): RecognizedSegment[] {
  const out: RecognizedSegment[] = [];
  for (const segment of segments) {
    const text = segment.text.trim();
    if (text === '' || isAnnotation(text)) continue;
    const textTokens = segment.tokens.filter((t) => !isSpecial(t));
    const grouped = groupTokens(textTokens);
    if (grouped.length === 0) continue;
    const spelled = text.split(/\s+/).map(bareWord).filter((w) => w !== '');
    const names = spelled.length === grouped.length ? spelled : grouped.map((w) => bareWord(w.raw));

    const segStart = segment.from / 1000;
    const segEnd = Math.max(segStart, segment.to / 1000);
    const timed = grouped.every((w) => w.from !== undefined && w.to !== undefined);
    const totalChars = grouped.reduce((n, w) => n + bareWord(w.raw).length, 0) || 1;
    let cursor = segStart;
    let charsSoFar = 0;
    const words: RecognizedWord[] = grouped.map((w, i) => {
      let start: number;
      let end: number;
      if (timed) {
        start = Math.min(segEnd, Math.max(cursor, w.from! / 1000));
        end = Math.min(segEnd, Math.max(start, w.to! / 1000));
      } else {
        start = segStart + ((segEnd - segStart) * charsSoFar) / totalChars;
        charsSoFar += bareWord(w.raw).length;
        end = segStart + ((segEnd - segStart) * charsSoFar) / totalChars;
      }
      cursor = end;
      const confidence = w.probabilities.reduce((a, b) => a + b, 0) / w.probabilities.length;
      return {
        word: names[i]!,
        start: round3(offsetSeconds + start),
        end: round3(offsetSeconds + end),
        confidence: Math.min(1, Math.max(0, Math.round(confidence * 1000) / 1000)),
      };
    });
    const logs = textTokens.map((t) => Math.log(Math.max(1e-6, t.p)));
    out.push({
      start: round3(offsetSeconds + segStart),
      end: round3(offsetSeconds + segEnd),
      text,
      words,
      avgLogprob: logs.length ? Math.round((logs.reduce((a, b) => a + b, 0) / logs.length) * 1000) / 1000 : 0,
    });
  }
  return out;
}
