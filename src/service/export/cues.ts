/**
 * Subtitle cues from transcript segments: at most two lines of 42 characters each (the common broadcast
 * and streaming limit), so long segments are split into several cues at word boundaries. A split takes
 * its times from the word timings when they line up with the segment's words, else it shares the
 * segment's time out by character count.
 */
import { cleanText } from './text';
import type { ExportTranscript } from './types';

export const MAX_LINE_CHARS = 42;
export const MAX_LINES = 2;

export interface Cue {
  start: number;
  end: number;
  speaker: string;
  lines: string[];
}

interface Token {
  text: string;
  start: number;
  end: number;
}

/** Breaks text into lines of at most `max` characters, two lines as even as possible. */
export function wrapLines(text: string, max = MAX_LINE_CHARS): string[] {
  if (text.length <= max) return [text];
  const words = text.split(' ');
  if (text.length <= 2 * max + 1) {
    let best: string[] | null = null;
    let bestLongest = Infinity;
    for (let i = 1; i < words.length; i++) {
      const first = words.slice(0, i).join(' ');
      const second = words.slice(i).join(' ');
      const longest = Math.max(first.length, second.length);
      if (longest <= max && longest < bestLongest) {
        best = [first, second];
        bestLongest = longest;
      }
    }
    if (best) return best;
  }
  // Greedy fill; a single word longer than a line stays whole.
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function fits(text: string): boolean {
  return wrapLines(text).length <= MAX_LINES;
}

type Segment = ExportTranscript['segments'][number];

function tokensOf(segment: Segment, text: string): Token[] {
  const parts = text.split(' ');
  const words = segment.words ?? [];
  if (words.length === parts.length) {
    return parts.map((part, i) => ({ text: part, start: words[i]!.start, end: words[i]!.end }));
  }
  // No usable word timings: spread the segment's time over its characters.
  const duration = Math.max(0, segment.end - segment.start);
  const total = text.length;
  const tokens: Token[] = [];
  let at = 0;
  for (const part of parts) {
    tokens.push({
      text: part,
      start: segment.start + (duration * at) / total,
      end: segment.start + (duration * (at + part.length)) / total,
    });
    at += part.length + 1;
  }
  return tokens;
}

/**
 * Cues for the segments, in order. `prefix` is put before each cue's text (e.g. "Ada: ") and counts
 * towards the line limit.
 */
export function buildCues(
  transcript: ExportTranscript,
  prefix: (speaker: string) => string = () => '',
): Cue[] {
  const cues: Cue[] = [];
  for (const segment of transcript.segments) {
    const text = cleanText(segment.text);
    if (!text) continue;
    const lead = prefix(segment.speaker);
    const end = Math.max(segment.start, segment.end);
    if (fits(lead + text)) {
      cues.push({ start: segment.start, end, speaker: segment.speaker, lines: wrapLines(lead + text) });
      continue;
    }
    const chunks: Token[][] = [];
    let chunk: Token[] = [];
    for (const token of tokensOf(segment, text)) {
      const candidate = [...chunk, token];
      if (chunk.length > 0 && !fits(lead + candidate.map((t) => t.text).join(' '))) {
        chunks.push(chunk);
        chunk = [token];
      } else {
        chunk = candidate;
      }
    }
    if (chunk.length) chunks.push(chunk);
    chunks.forEach((c, i) => {
      // Cues of one segment follow each other without gaps: each runs until the next one starts.
      const start = i === 0 ? segment.start : Math.min(Math.max(c[0]!.start, cues.at(-1)!.start), end);
      if (i > 0) cues.at(-1)!.end = start;
      cues.push({
        start,
        end,
        speaker: segment.speaker,
        lines: wrapLines(lead + c.map((t) => t.text).join(' ')),
      });
    });
  }
  return cues;
}
