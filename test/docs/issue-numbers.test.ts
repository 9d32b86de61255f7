/**
 * Code comments and documentation say why, not which tracker entry asked for it: a reader of the tree has no
 * tracker, and a tracker entry's number tells them nothing. This walks the sources, tests, benchmarks, docs and README.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const TREES = ['src', 'test', 'bench', 'docs'];
const FILES = ['README.md'];
/** Folders that hold generated or installed files, never written by hand. */
const SKIP = new Set(['node_modules', 'out', 'dist', 'coverage', 'results', 'test-artifacts']);
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|css|html|json|sh|py|praat|service)$/;

/** The word, singular or plural, then a number (with or without `#`), in any case. */
const ISSUE_NUMBER = new RegExp(['\\b', 'issues?', '\\s+#?\\d+'].join(''), 'i');

function issueMentions(text: string): Array<{ line: number; text: string }> {
  const found: Array<{ line: number; text: string }> = [];
  text.split('\n').forEach((line, i) => {
    if (ISSUE_NUMBER.test(line)) found.push({ line: i + 1, text: line.trim() });
  });
  return found;
}

function walk(dir: string, out: string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out; // a tree that does not exist here (docs/ before it is written)
  }
  for (const name of names) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(path, out);
    else if (TEXT.test(name)) out.push(path);
  }
  return out;
}

describe('issue numbers in comments and docs', () => {
  it('finds the forms it is meant to find, and not ordinary words', () => {
    expect(issueMentions(['// fixed in issue', ' 34: x'].join(''))).toHaveLength(1);
    expect(issueMentions(['## Round (2026-11-27, Issue', ' 14)'].join(''))).toHaveLength(1);
    expect(issueMentions(['see issues', ' #12'].join(''))).toHaveLength(1);
    expect(issueMentions('per-line quality issues (over the line span)\nno issue with 3 lines')).toEqual([]);
  });

  it('no file under src/, test/, bench/, docs/ or README.md names an issue by number', () => {
    const files = [...TREES.flatMap((tree) => walk(join(ROOT, tree), [])), ...FILES.map((f) => join(ROOT, f))];
    expect(files.length).toBeGreaterThan(500);
    const offenders = files.flatMap((file) =>
      issueMentions(readFileSync(file, 'utf8')).map((m) => `${relative(ROOT, file)}:${m.line}: ${m.text}`),
    );
    expect(offenders).toEqual([]);
  });
});
