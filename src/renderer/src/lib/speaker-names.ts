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
 * A voice match's certainty from its similarity (0–1): shown as a percentage, with a level for its colour.
 * The bands only colour the figure; whether two voices matched is the service's decision (`matched`).
 */
export function matchCertainty(similarity: number): MatchCertainty {
  const s = Math.max(0, Math.min(1, similarity));
  const level = s >= 0.98 ? 'strong' : s >= 0.96 ? 'fair' : 'weak';
  const percent = `${(s * 100).toFixed(1)}%`;
  return {
    level,
    text: `match ${percent}`,
    title:
      `The voice was matched to a speaker the project already knew, at similarity ${s.toFixed(3)} ` +
      `(${level === 'strong' ? 'a close match' : level === 'fair' ? 'a fair match' : 'a weak match'}). ` +
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
