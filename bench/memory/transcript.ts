/** `node --import tsx bench/memory/transcript.ts <file>`: caches a recording's transcript for the analysis benches. */
import path from 'node:path';
import { cachedTranscript } from '../lib/long-cache';

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  const file = process.argv[2]!;
  const t = await cachedTranscript(file, (s) => process.stdout.write(`${s}\n`));
  process.stdout.write(`${t.segments.length} lines, ${t.duration} s\n`);
}
