import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths';

const srcDir = path.join(repoRoot, 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/**
 * Every file's imports of other files under src/ (type-only imports and re-exports included; dynamic
 * `import()` too), resolved as the compiler resolves them.
 */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), ts.sys.readFile).config ?? {};
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repoRoot);
  const inSrc = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => ts.resolveModuleName(imported.fileName, file, options, ts.sys).resolvedModule?.resolvedFileName)
      .filter((target): target is string => target !== undefined && inSrc.has(path.resolve(target)))
      .map((target) => path.resolve(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.map((f) => path.relative(srcDir, f)).sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('imports between files under src/', () => {
  it('form no circle, type-only imports included', () => {
    const files = sourceFiles(srcDir);
    const graph = importGraph(files);
    expect([...graph.values()].flat().length, 'imports were resolved').toBeGreaterThan(1000);
    expect(cycles(graph), 'move what both files need into a module both import').toEqual([]);
  }, 120_000);
});
