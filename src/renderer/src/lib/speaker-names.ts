/**
 * One naming everywhere: a recording's speaker is shown by its project speaker's name from the session's
 * speaker map (the service's one source, which every export reads too), else by its label. And how a voice
 * match reads in the studio.
 */

export interface NamedEntry {
  name: string;
}

/** The name the studio shows for a label: the speaker map's name (non-blank), else the label itself. */
export function speakerDisplayName(label: string, map: Readonly<Record<string, NamedEntry>> | undefined): string {
  const name = map?.[label]?.name?.replace(/\s+/g, ' ').trim();
  return name ? name : label;
}

export interface MatchCertainty {
  level: 'strong' | 'fair' | 'weak';
  /** "match 97.7%" */
  text: string;
  title: string;
}

/**
 * A voice match's certainty from its similarity (0–1), judged against the service's own match threshold
 * (`match_threshold` of the speaker map): shown as a percentage, with a level for its colour. The room above
 * the threshold is split in two: the upper half is a close match, the lower half a fair one (just over the
 * line the service drew), and a similarity under the threshold (a match made before the threshold was
 * raised) is weak. With the threshold 0.9615, a close match starts at 98.1 %. The level only colours the
 * figure; whether two voices matched is the service's decision (`matched`).
 */
export function matchCertainty(similarity: number, threshold: number): MatchCertainty {
  const s = Math.max(0, Math.min(1, similarity));
  const t = Math.max(0, Math.min(1, threshold));
  const level = s < t ? 'weak' : s >= t + (1 - t) / 2 ? 'strong' : 'fair';
  const percent = `${(s * 100).toFixed(1)}%`;
  return {
    level,
    text: `match ${percent}`,
    title:
      `The voice was matched to a speaker the project already knew, at similarity ${s.toFixed(3)}; the service matches ` +
      `from ${t.toFixed(4)} (${level === 'strong' ? 'a close match' : level === 'fair' ? 'a fair match, not far over that line' : 'a weak match, under the service’s threshold now'}). ` +
      'If it is someone else, press “Not this person”: the project remembers it and never matches this voice to that speaker again.',
  };
}

/**
 * The analysis writes its notes with the recording's labels ("S1 speaks for 0:42…"): the studio shows them
 * with the names the transcript and the exports use. Only whole-word labels of the recording are replaced.
 */
export function nameLabels(text: string, labels: readonly string[], name: (label: string) => string): string {
  if (labels.length === 0) return text;
  const escaped = [...labels].sort((a, b) => b.length - a.length).map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return text.replace(new RegExp(`(?<![\\w-])(${escaped.join('|')})(?![\\w-])`, 'g'), (label) => name(label));
}

/**
 * A recording's speakers in the order they first speak (the first line each has), whatever their labels or
 * project numbers: how the legend and the speakers panel list them. Labels without a line keep their place
 * after the others.
 */
export function speakersInOrder(transcript: { speakers: readonly string[]; segments: readonly { speaker: string; start: number }[] } | null | undefined): string[] {
  if (!transcript) return [];
  const first = new Map<string, number>();
  for (const s of transcript.segments) if (!(s.start >= (first.get(s.speaker) ?? Infinity))) first.set(s.speaker, s.start);
  return [...transcript.speakers].sort((a, b) => (first.get(a) ?? Infinity) - (first.get(b) ?? Infinity) || transcript.speakers.indexOf(a) - transcript.speakers.indexOf(b));
}

/**
 * Where a project speaker's number comes from, said beside its name: the project numbers voices as it first
 * hears them, so "Speaker 8" in a recording of two voices is the project's eighth voice, first heard there.
 */
export function firstHeardNote(sessionId: string, entry: { number: number; first_heard_in?: { session_id: string; file_name: string } } | undefined): string | null {
  if (!entry?.first_heard_in) return null;
  return entry.first_heard_in.session_id === sessionId
    ? `voice ${entry.number} of the project · first heard here`
    : `voice ${entry.number} of the project · first heard in ${entry.first_heard_in.file_name}`;
}
