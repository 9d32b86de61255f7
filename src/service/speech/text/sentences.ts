/**
 * Where sentences end in recognized speech, from what the recognizer cannot hear as text: pauses and the
 * pitch at each word's end. The rule, applied after every word (`gap` = silence until the next word,
 * `fall` = semitones the word's end lies below the speaker's middle pitch, see pitch-cues.ts):
 *
 * 1. The last word of the recording ends a sentence.
 * 2. A word that cannot end a clause (articles, prepositions, conjunctions, possessives: "the", "of",
 *    "and", "my" …) ends nothing: a pause after it is a hesitation.
 * 3. gap ≥ 1.2 s: a sentence ends (a reader or speaker rarely pauses that long inside one).
 * 4. 0.45 s ≤ gap < 1.2 s: a sentence ends if the pitch fell (fall ≥ 3 semitones, or unknown pitch
 *    with gap ≥ 0.6 s); otherwise the pause marks a clause: a comma.
 * 5. Shorter gaps: nothing.
 *
 * Questions are not marked: a final rise is as common on a list or an unfinished clause as on a question,
 * and the decoder's words give no reliable cue.
 */

export type Mark = '' | ',' | '.';

export interface SentenceCue {
  word: string;
  start: number;
  end: number;
  /** See pitch-cues.ts; null when unknown. */
  fall: number | null;
}

export interface SentenceRule {
  longPause: number;
  shortPause: number;
  unknownPitchPause: number;
  fall: number;
}

export const SENTENCE_RULE: Readonly<SentenceRule> = {
  longPause: 1.2,
  shortPause: 0.45,
  unknownPitchPause: 0.6,
  fall: 3,
};

/** Words after which neither a clause nor a sentence ends (lower case). */
const CONTINUATIONS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor of to in on at by for from with into onto upon about than that as if ' +
    'my your his her its our their whose which who whom because although though while whereas ' +
    "is are was were be been am i'm we're you're they're he's she's it's there's i we you they he she " +
    'very such these those every each'
  ).split(' '),
);

/**
 * The mark after each word. `nextStart` is when the speech after the last word starts (null: nothing
 * follows, the recording ends).
 */
export function sentenceMarks(
  words: readonly SentenceCue[],
  nextStart: number | null,
  rule: Readonly<SentenceRule> = SENTENCE_RULE,
): Mark[] {
  return words.map((w, i) => {
    const next = i + 1 < words.length ? words[i + 1]!.start : nextStart;
    if (next === null) return '.';
    if (CONTINUATIONS.has(bare(w.word))) return '';
    // Rounded against float error, so a gap of exactly a threshold (0.3 s from times like 2.3 and 2.6) counts.
    const gap = Math.round((next - w.end) * 1e6) / 1e6;
    if (gap >= rule.longPause) return '.';
    if (gap < rule.shortPause) return '';
    if (w.fall === null) return gap >= rule.unknownPitchPause ? '.' : ',';
    return w.fall >= rule.fall ? '.' : ',';
  });
}

function bare(word: string): string {
  return word.toLowerCase().replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, '');
}
