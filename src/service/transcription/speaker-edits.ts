import type { Transcript, TranscriptSegment, TranscriptWord } from '../speech/types';

/**
 * An editor's speaker fixes, as pure functions from one transcript to the next: reassign a line (or a
 * word range of it) to another speaker, merge two speakers, split a line at a word. Labels are kept as they
 * are (a merged label disappears, a new one is the next free `S<n>`); segment ids are renumbered 0…n−1 in
 * time order, as the pipeline numbers them.
 */

/** Invalid edit input; `loc` names the body field (FastAPI-style). */
export class SpeakerEditError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EditResult {
  transcript: Transcript;
  /** Labels whose speech changed: their voice profiles must be measured again. */
  touched: string[];
}

/** The next unused label: `S<max+1>`. */
export function newSpeakerLabel(transcript: Transcript): string {
  const numbers = transcript.speakers.map((s) => /^S(\d+)$/.exec(s)?.[1]).filter((n) => n !== undefined).map(Number);
  return `S${Math.max(0, ...numbers) + 1}`;
}

function segmentIndex(transcript: Transcript, segmentId: number): number {
  const index = transcript.segments.findIndex((s) => s.id === segmentId);
  if (index < 0) throw new SpeakerEditError('segment_id', `No line ${segmentId} in the transcript (lines are 0–${transcript.segments.length - 1}).`);
  return index;
}

/**
 * The segment's text for a run of its words: its whitespace-separated tokens when they match the words one
 * to one (keeping the recognizer's casing and punctuation), else the words themselves.
 */
function textOf(segment: TranscriptSegment, from: number, to: number): string {
  const tokens = segment.text.trim().split(/\s+/).filter(Boolean);
  if (tokens.length === segment.words.length) return tokens.slice(from, to).join(' ');
  return segment.words
    .slice(from, to)
    .map((w) => w.word.trim())
    .join(' ');
}

/** Cuts a segment at word indices (each 0 < cut < words.length): pieces keep the speaker, edges keep the segment's times. */
function cutSegment(segment: TranscriptSegment, cuts: number[]): TranscriptSegment[] {
  const bounds = [0, ...cuts, segment.words.length];
  return bounds.slice(1).map((to, i) => {
    const from = bounds[i]!;
    const words = segment.words.slice(from, to);
    return {
      ...segment,
      start: from === 0 ? segment.start : words[0]!.start,
      end: to === segment.words.length ? segment.end : words.at(-1)!.end,
      text: textOf(segment, from, to),
      words,
    };
  });
}

function relabelled(segment: TranscriptSegment, speaker: string): TranscriptSegment {
  return { ...segment, speaker, words: segment.words.map((w): TranscriptWord => ({ ...w, speaker })) };
}

/** Renumbers ids, rebuilds the text and the speakers in order of first appearance; drops profiles of labels gone. */
function finish(transcript: Transcript, segments: TranscriptSegment[]): Transcript {
  const numbered = segments.map((s, id) => ({ ...s, id }));
  const speakers = [...new Set(numbered.map((s) => s.speaker))];
  const profiles = transcript.profiles ? Object.fromEntries(Object.entries(transcript.profiles).filter(([label]) => speakers.includes(label))) : undefined;
  return {
    ...transcript,
    segments: numbered,
    speakers,
    text: numbered.map((s) => s.text).join(' '),
    ...(profiles ? { profiles } : {}),
  };
}

export interface ReassignEdit {
  segmentId: number;
  /** First and last word (inclusive, 0-based) of the range; both omitted = the whole line. */
  wordStart?: number;
  wordEnd?: number;
  /** An existing label, or a new one from newSpeakerLabel. */
  speaker: string;
}

/** Gives a line, or a word range of it (cut out as its own line), to another speaker. */
export function reassignSpeaker(transcript: Transcript, edit: ReassignEdit): EditResult {
  const index = segmentIndex(transcript, edit.segmentId);
  const segment = transcript.segments[index]!;
  const n = segment.words.length;
  const whole = edit.wordStart === undefined && edit.wordEnd === undefined;
  const first = edit.wordStart ?? 0;
  const last = edit.wordEnd ?? n - 1;
  if (!whole) {
    if (n === 0) throw new SpeakerEditError('word_start', 'This line has no word timings; reassign the whole line.');
    if (!Number.isInteger(first) || first < 0 || first >= n) throw new SpeakerEditError('word_start', `word_start must be a word of the line (0–${n - 1}).`);
    if (!Number.isInteger(last) || last < first || last >= n) throw new SpeakerEditError('word_end', `word_end must be between word_start and the last word (${first}–${n - 1}).`);
  }
  if (segment.speaker === edit.speaker && (whole || segment.words.slice(first, last + 1).every((w) => w.speaker === edit.speaker))) {
    throw new SpeakerEditError('speaker', `That speech is already ${edit.speaker}'s.`);
  }
  let pieces: TranscriptSegment[];
  let target: number;
  if (whole || (first === 0 && last === n - 1)) {
    pieces = [segment];
    target = 0;
  } else {
    const cuts = [first, last + 1].filter((c) => c > 0 && c < n);
    pieces = cutSegment(segment, cuts);
    target = first === 0 ? 0 : 1;
  }
  pieces[target] = relabelled(pieces[target]!, edit.speaker);
  const segments = [...transcript.segments.slice(0, index), ...pieces, ...transcript.segments.slice(index + 1)];
  return { transcript: finish(transcript, segments), touched: [...new Set([segment.speaker, edit.speaker])] };
}

/** Every line of `from` becomes `into`'s; `from` disappears. */
export function mergeSpeakers(transcript: Transcript, from: string, into: string): EditResult {
  if (!transcript.speakers.includes(from)) throw new SpeakerEditError('from', `No speaker ${from} in the transcript (${transcript.speakers.join(', ')}).`);
  if (!transcript.speakers.includes(into)) throw new SpeakerEditError('into', `No speaker ${into} in the transcript (${transcript.speakers.join(', ')}).`);
  if (from === into) throw new SpeakerEditError('into', 'A speaker cannot be merged into itself.');
  // Words always carry their line's speaker, so relabelling lines relabels every word.
  const segments = transcript.segments.map((s) => (s.speaker === from ? relabelled(s, into) : s));
  return { transcript: finish(transcript, segments), touched: [into] };
}

/** Cuts a line before word `atWord` (1 … words−1) into two lines of the same speaker. */
export function splitSegment(transcript: Transcript, segmentId: number, atWord: number): EditResult {
  const index = segmentIndex(transcript, segmentId);
  const segment = transcript.segments[index]!;
  const n = segment.words.length;
  if (!Number.isInteger(atWord) || atWord < 1 || atWord >= n) {
    throw new SpeakerEditError('word_index', n < 2 ? 'A line needs two words to be split.' : `word_index must be 1–${n - 1} (the first word of the second line).`);
  }
  const segments = [...transcript.segments.slice(0, index), ...cutSegment(segment, [atWord]), ...transcript.segments.slice(index + 1)];
  return { transcript: finish(transcript, segments), touched: [] };
}
