import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm run bench [-- name …]`: runs each benchmark under bench/<name>/run.ts in turn; they print their figures. */
const here = path.dirname(fileURLToPath(import.meta.url));
const available = fs
  .readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(here, d.name, 'run.ts')))
  .map((d) => d.name)
  .sort();
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((a) => !available.includes(a));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}
let failed = 0;
for (const name of asked.length ? asked : available) {
  process.stdout.write(`\n=== bench/${name} ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, name, 'run.ts')], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
