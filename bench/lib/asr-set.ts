/**
 * The ASR set of ../shared/audio/asr as the benchmarks read it: each file once (refs.tsv lists jfk twice),
 * with its source, half (halves.ts), duration and reference text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { halves, sourceOf, type Half } from './halves';

export interface AsrFile {
  file: string;
  source: string;
  half: Half;
  duration: number;
  reference: string;
}

export function readAsrSet(asrDir: string): AsrFile[] {
  const lines = readFileSync(path.join(asrDir, 'refs.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const half = halves(lines.map((l) => l.split('\t')[0]!));
  const seen = new Set<string>();
  const out: AsrFile[] = [];
  for (const line of lines) {
    const [file, duration, reference] = line.split('\t') as [string, string, string];
    if (seen.has(file)) continue;
    seen.add(file);
    out.push({ file, source: sourceOf(file), half: half.get(file)!, duration: Number(duration), reference });
  }
  return out;
}
