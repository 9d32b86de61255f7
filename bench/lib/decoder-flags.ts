/**
 * Decoder flags given to a bench on its command line (`--args "-pl_weight 3 -maxhmmpf 30000"`, or the words
 * after `--`) as flag → value, to lay over the shipped RECOGNITION_ARGS. A trailing flag without a value is
 * dropped.
 */
export function decoderFlagPairs(words: readonly string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (let i = 0; i + 1 < words.length; i += 2) pairs[words[i]!] = words[i + 1]!;
  return pairs;
}

/** The same from one string, split at whitespace (`--args`); absent or empty → no flags. */
export function parseDecoderFlags(text: string | undefined): Record<string, string> {
  return decoderFlagPairs((text ?? '').split(/\s+/).filter(Boolean));
}
