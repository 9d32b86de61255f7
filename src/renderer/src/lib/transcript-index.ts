/**
 * Lookups over a transcript that run on every playback tick: binary searches, never scans, so a
 * 1-hour transcript follows playback without work proportional to its length.
 */
interface Timed {
  start: number;
  end: number;
}

/** Index of the last item starting at or before t, or -1 before the first. */
export function lastStartingBefore(items: readonly Timed[], t: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.start <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The segment playing at t: the one containing t, else the last one that started (so a pause keeps its line lit). */
export function activeSegmentIndex(segments: readonly Timed[], t: number): number {
  return lastStartingBefore(segments, t);
}

/** The word being spoken at t within a segment, or -1 in a gap between words. */
export function activeWordIndex(words: readonly Timed[], t: number): number {
  const i = lastStartingBefore(words, t);
  if (i < 0) return -1;
  return t < words[i]!.end ? i : -1;
}

/** Case- and accent-insensitive form used for searching. */
export function normalizeForSearch(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Indices of segments whose text contains the query (all when the query is blank). */
export function searchSegments(segments: readonly { text: string }[], query: string): number[] {
  const q = normalizeForSearch(query.trim());
  const all = segments.map((_, i) => i);
  if (!q) return all;
  return all.filter((i) => normalizeForSearch(segments[i]!.text).includes(q));
}

/** Whether a word matches the query (each query term is matched against words separately). */
export function wordMatches(word: string, query: string): boolean {
  const q = normalizeForSearch(query.trim());
  if (!q) return false;
  const w = normalizeForSearch(word).replace(/[^\p{L}\p{N}']/gu, '');
  if (!w) return false;
  return q.split(/\s+/).some((term) => {
    const t = term.replace(/[^\p{L}\p{N}']/gu, '');
    return t.length > 0 && w.includes(t);
  });
}
