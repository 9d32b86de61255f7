/**
 * Two analysis results (analysis-stages.ts --out) compared value by value: the largest absolute difference
 * between numbers at the same place, and every place where anything else differs (a string, a missing
 * value, an array's length). Exit code 1 when numbers differ by more than `--tolerance` (default 1e-6) or
 * anything else differs.
 *
 *   node --import tsx bench/memory/compare-results.ts A.json B.json [--tolerance 1e-6]
 */
import fs from 'node:fs';

export interface Comparison {
  numbers: number;
  maxDifference: number;
  at: string;
  others: string[];
}

export function compareValues(a: unknown, b: unknown, where = '', out: Comparison = { numbers: 0, maxDifference: 0, at: '', others: [] }): Comparison {
  if (typeof a === 'number' && typeof b === 'number') {
    out.numbers++;
    const d = Number.isNaN(a) && Number.isNaN(b) ? 0 : Math.abs(a - b);
    if (!(d <= out.maxDifference)) {
      out.maxDifference = d;
      out.at = where;
    }
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.others.push(`${where}: length ${a.length} ≠ ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) compareValues(a[i], b[i], `${where}[${i}]`, out);
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) compareValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${where}.${k}`, out);
  } else if (a !== b) out.others.push(`${where}: ${JSON.stringify(a)?.slice(0, 80)} ≠ ${JSON.stringify(b)?.slice(0, 80)}`);
  return out;
}

if (process.argv[1]?.endsWith('compare-results.ts')) {
  const [fileA, fileB] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const i = process.argv.indexOf('--tolerance');
  const tolerance = i >= 0 ? Number(process.argv[i + 1]) : 1e-6;
  const read = (f: string) => JSON.parse(fs.readFileSync(f!, 'utf8')) as unknown;
  const c = compareValues(read(fileA!), read(fileB!));
  process.stdout.write(`${c.numbers} numbers compared; largest difference ${c.maxDifference}${c.at ? ` at ${c.at}` : ''}; ${c.others.length} other differences\n`);
  for (const o of c.others.slice(0, 20)) process.stdout.write(`  ${o}\n`);
  process.exit(c.maxDifference > tolerance || c.others.length ? 1 : 0);
}
