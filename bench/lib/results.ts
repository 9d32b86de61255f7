import fs from 'node:fs';
import path from 'node:path';

/** Where benches leave their detailed figures (not committed). */
export const RESULTS_DIR = path.join(import.meta.dirname, '..', 'results');

/** Writes one result file under bench/results/ (made when missing); returns the path as the README names it. */
export function writeResult(name: string, contents: string): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, name), contents);
  return `bench/results/${name}`;
}
