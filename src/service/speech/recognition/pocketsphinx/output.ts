/**
 * Parsers for what pocketsphinx_batch writes per utterance: `-hypseg` (every token, fillers included,
 * with start frames and scores) and `-ctm` (real words only, with start, duration and the lattice
 * posterior). Times are in frames of 10 ms (`-frate 100`), relative to the utterance's first sample.
 */

export const FRAME_RATE = 100;

export interface HypsegToken {
  /** As the decoder spells it, alternate pronunciations included (`the(2)`, `<sil>`, `[NOISE]`). */
  token: string;
  /** First frame. */
  startFrame: number;
  /** Last frame (inclusive). */
  endFrame: number;
  acousticScore: number;
  languageScore: number;
}

export interface HypsegUtterance {
  uttid: string;
  totalScore: number;
  tokens: HypsegToken[];
}

/** One `-hypseg` line: `uttid S 0 T total A ascr L lscr (sf ascr lscr word)* ef`. */
export function parseHypsegLine(line: string): HypsegUtterance {
  const f = line.trim().split(/\s+/);
  if (f.length < 10 || f[1] !== 'S' || f[3] !== 'T') throw new Error(`not a hypseg line: ${line}`);
  const uttid = f[0]!;
  const totalScore = Number(f[4]);
  const tokens: HypsegToken[] = [];
  let i = 9;
  while (i + 4 < f.length) {
    tokens.push({
      startFrame: Number(f[i]),
      acousticScore: Number(f[i + 1]),
      languageScore: Number(f[i + 2]),
      token: f[i + 3]!,
      endFrame: NaN,
    });
    i += 4;
  }
  const lastFrame = Number(f[f.length - 1]);
  for (let k = 0; k < tokens.length; k++) {
    tokens[k]!.endFrame = k + 1 < tokens.length ? tokens[k + 1]!.startFrame - 1 : lastFrame;
  }
  return { uttid, totalScore, tokens };
}

export interface CtmWord {
  uttid: string;
  word: string;
  /** Seconds from the utterance start. */
  start: number;
  duration: number;
  /** Posterior probability in [0, 1]. */
  confidence: number;
}

/** `-ctm` lines: `uttid channel start duration word posterior`. */
export function parseCtm(text: string): CtmWord[] {
  const words: CtmWord[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    words.push({
      uttid: f[0]!,
      start: Number(f[2]),
      duration: Number(f[3]),
      word: f[4]!,
      confidence: Math.min(1, Math.max(0, Number(f[5]))),
    });
  }
  return words;
}

/** `the(2)` → `the`. */
export function baseWord(token: string): string {
  return token.replace(/\(\d+\)$/, '');
}

/** Tokens that are not words: sentence markers, silence and the model's noise fillers. */
export function isFiller(token: string): boolean {
  return /^<.*>$/.test(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token);
}
