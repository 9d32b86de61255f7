/** What backs a value, as the studio names it beside each value (the service's `source` field). */
import type { Source } from '../../../shared/schemas/analysis';

const NAMES: Record<Source, string> = {
  measured: 'measured',
  heard: 'heard',
  located: 'located',
  estimate: 'estimate',
};

const MEANINGS: Record<Source, string> = {
  measured: 'read from the signal',
  heard: 'a model listened to the audio',
  located: 'placed from the word alignment',
  estimate: 'inferred by rules from other values',
};

export function sourceName(source: Source): string {
  return NAMES[source] ?? source;
}

export function sourceMeaning(source: Source): string {
  return MEANINGS[source] ?? source;
}

/** "Source: heard (a model listened to the audio)"; several joined with "+". */
export function sourcesLine(sources: readonly Source[]): string {
  if (sources.length === 0) return 'Source: not stated';
  return `Source: ${sources.map((s) => `${sourceName(s)} (${sourceMeaning(s)})`).join(' + ')}`;
}
