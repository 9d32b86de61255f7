import type { SpokenWord } from './voice';

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The words of a text as festival spoke them, from the lines its `takeline_words` wrote: one per word it
 * said (`<utterance>:<token id>\t<start>\t<end>\t<token>`), times from its Segment relation (a word starts
 * where the phone before its first one ends, and ends with its last phone). Words festival expanded from one
 * token ("$5" → "five dollars") are joined back into that token, so the words are the text's own.
 */
export function parseFestivalWords(lines: string): SpokenWord[] {
  const words: Array<SpokenWord & { key: string }> = [];
  for (const line of lines.split('\n')) {
    const [key, start, end, ...name] = line.split('\t');
    const word = name.join('\t').trim();
    const from = Number(start);
    const to = Number(end);
    if (!key || !word || !Number.isFinite(from) || !Number.isFinite(to)) continue;
    const last = words.at(-1);
    if (last && last.key === key) last.end = round6(Math.max(last.end, to));
    else words.push({ key, word, start: round6(from), end: round6(Math.max(from, to)) });
  }
  return words.map(({ word, start, end }) => ({ word, start, end }));
}
