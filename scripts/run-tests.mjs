/* global process */
// `npm test`: typecheck, lint, build the studio and Electron layers, then every vitest suite. A passing run
// stays short: the build lists only warnings, tests print only when they fail, and nothing is coloured when
// the output goes to a file or a CI log (tinyrainbow colours whenever CI is set).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const env = { ...process.env };
if (!process.stdout.isTTY) {
  env.NO_COLOR = '1';
  delete env.FORCE_COLOR;
}

const steps = [
  ['typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']],
  ['lint', bin('eslint'), ['.']],
  ['build', bin('electron-vite'), ['build', '--logLevel', 'warn']],
  ['tests', bin('vitest'), ['run', ...process.argv.slice(2)]],
];
for (const [name, program, args] of steps) {
  process.stdout.write(`npm test: ${name}\n`);
  const result = spawnSync(program, args, { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stdout.write(`npm test: ${name} failed\n`);
    process.exit(result.status ?? 1);
  }
}
