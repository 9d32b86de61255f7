import { lineLabel } from '../../../shared/script-words';
import { normalizeWords } from '../scoring/wer';

export { lineLabel };

/**
 * A script as the user pastes it, read into words. Format (documented in docs/transcription.md, "Script alignment"):
 * - Each non-empty line is a line of the script (its own transcript line at least).
 * - A line that begins `NAME: ` (NAME up to 40 characters and 3 words, starting with a letter: "ADA:",
 *   "Dr. Grey:", "S2:") names the speaker of that line and of the unlabelled lines after it.
 * - A script without any label gets its speakers from diarization.
 * Words are the whitespace-separated tokens; a token without letters or digits ("—", "…") is glued to the
 * word before it so every word of the transcript is something that is said.
 */

/** Largest script accepted, in UTF-8 bytes and in words. */
export const MAX_SCRIPT_BYTES = 1_000_000;
export const MAX_SCRIPT_WORDS = 200_000;

export interface ScriptWord {
  /** The token as written (with its punctuation). */
  text: string;
  /** Normalised form for matching against recognised words ("1455" → "fourteen fifty five"). */
  key: string;
  /** Index of the script line the word is on. */
  line: number;
  /** The speaker name the script gives (null when the script names none up to here). */
  speaker: string | null;
  /** The token ends a sentence (., !, ? or …, before any closing quote or bracket). */
  sentenceEnd: boolean;
}

export interface ParsedScript {
  words: ScriptWord[];
  /** Distinct speaker names, in order of first appearance (empty: speakers come from diarization). */
  names: string[];
}

/** Invalid script; `message` says what to change. */
export class ScriptError extends Error {}

export function parseScript(text: string): ParsedScript {
  if (Buffer.byteLength(text, 'utf8') > MAX_SCRIPT_BYTES) {
    throw new ScriptError(`The script is larger than ${MAX_SCRIPT_BYTES} bytes; align it in parts.`);
  }
  const words: ScriptWord[] = [];
  const names: string[] = [];
  let speaker: string | null = null;
  let line = 0;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (!raw.trim()) continue;
    const label = lineLabel(raw);
    let body = raw;
    if (label) {
      speaker = label.name;
      body = label.rest;
      if (!names.includes(speaker)) names.push(speaker);
    }
    let added = false;
    for (const token of body.split(/\s+/).filter(Boolean)) {
      const normalized = normalizeWords(token);
      if (!normalized.length) {
        // Punctuation alone: belongs to the word before it on this line.
        const last = words.at(-1);
        if (last && last.line === line) {
          last.text += token;
          last.sentenceEnd ||= endsSentence(token);
        }
        continue;
      }
      words.push({ text: token, key: normalized.join(' '), line, speaker, sentenceEnd: endsSentence(token) });
      added = true;
      if (words.length > MAX_SCRIPT_WORDS) {
        throw new ScriptError(`The script has more than ${MAX_SCRIPT_WORDS} words; align it in parts.`);
      }
    }
    if (added) line++;
  }
  if (!words.length) throw new ScriptError('The script has no words to align.');
  if (names.length && words[0]!.speaker === null) {
    // Lines before the first label have no speaker; they take the first named one's (documented).
    const first = words.find((w) => w.speaker !== null)!.speaker;
    for (const w of words) if (w.speaker === null) w.speaker = first;
  }
  return { words, names };
}

function endsSentence(token: string): boolean {
  return /[.!?…]["'’”)\]]*$/u.test(token);
}
