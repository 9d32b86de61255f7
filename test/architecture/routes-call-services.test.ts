import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths';

const serviceDir = path.join(repoRoot, 'src', 'service');
const routesDir = path.join(serviceDir, 'http', 'routes');

/** The route files (their tests aside), relative to src/service. */
function routeFiles(): string[] {
  return fs
    .readdirSync(routesDir)
    .filter((name) => /\.ts$/.test(name) && !/\.(test|testutil)\.ts$/.test(name))
    .map((name) => path.relative(serviceDir, path.join(routesDir, name)));
}

/** Every module a file imports (type-only imports, re-exports and `import()` included), resolved to a path under src/service. */
function importsOf(file: string): string[] {
  const full = path.join(serviceDir, file);
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(full, 'utf8'), true, true);
  return importedFiles.filter((i) => i.fileName.startsWith('.')).map((i) => path.relative(serviceDir, path.resolve(path.dirname(full), i.fileName)));
}

/** The raw database in code (comments and strings left out): `sql` or `Sql` named, or a `….transaction(…)` called. */
function rawDatabaseUses(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(serviceDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const line = () => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    if (ts.isIdentifier(node) && /^(sql|Sql)$/.test(node.text)) found.push(`${node.text} (line ${line()})`);
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'transaction') found.push(`${node.expression.getText(source)}() (line ${line()})`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('routes call services', () => {
  it('no route file imports from storage/', () => {
    const files = routeFiles();
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((file) => importsOf(file).filter((target) => target.split(path.sep)[0] === 'storage').map((target) => `${file} → ${target}`));
    expect(offenders, 'a route asks a service (recordings/, projects/, dubbing/ …), which owns its stores').toEqual([]);
  });

  it('no route file touches the raw database or opens a transaction', () => {
    const offenders = routeFiles().flatMap((file) => rawDatabaseUses(file).map((use) => `${file}: ${use}`));
    expect(offenders, 'SQL and transactions belong to storage/ and the services over it').toEqual([]);
  });

  it('the context routes are given holds no raw database', () => {
    const file = path.join(serviceDir, 'context.ts');
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const context = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'ServiceContext');
    expect(context, 'ServiceContext is declared in context.ts').toBeDefined();
    const members = context!.members.map((m) => m.name?.getText(source) ?? '');
    expect(members.length).toBeGreaterThan(10);
    expect(members.filter((name) => name === 'sql')).toEqual([]);
    const types = context!.members.map((m) => (ts.isPropertySignature(m) && m.type ? m.type.getText(source) : ''));
    expect(types.filter((type) => /\bSql\b/.test(type))).toEqual([]);
  });
});
