/**
 * The fixed tuning/test split of every public set in ../shared/audio (bench/README.md, "Tuning and test
 * halves"). Within each source (the file-name prefix before the first "_": amateur, cmu, jfk, librispeech,
 * ljspeech, pocketsphinx; for diarization "sample" is the call and trnNN the AMI meetings), files are sorted
 * by name and alternate: positions 0, 2, 4 … are the tuning half, 1, 3, 5 … the test half. A source of one
 * file is tuning only. Settings are chosen on the tuning half; the test half only reports.
 */
export type Half = 'tune' | 'test';

export function sourceOf(file: string): string {
  if (/^trn\d+/.test(file)) return 'ami';
  if (file === 'sample' || file.startsWith('sample.')) return 'call';
  return file.split('_')[0]!;
}

/** Half of each file (duplicates counted once). */
export function halves(files: readonly string[]): Map<string, Half> {
  const bySource = new Map<string, string[]>();
  for (const file of new Set(files)) {
    const source = sourceOf(file);
    if (!bySource.has(source)) bySource.set(source, []);
    bySource.get(source)!.push(file);
  }
  const out = new Map<string, Half>();
  for (const list of bySource.values()) {
    list.sort().forEach((file, i) => out.set(file, i % 2 === 0 ? 'tune' : 'test'));
  }
  return out;
}
