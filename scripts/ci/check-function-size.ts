/**
 * No function over 150 lines (`npm run ci:function-size`, run by `.ci/run` and by
 * test/unit/function-size.test.ts). A function that long does several jobs, and its reader must hold them
 * all at once; split it by job instead.
 *
 * Every function in lib/, local/, functions/, scripts/ and bench/ is measured, parsed with the TypeScript
 * compiler: declarations, methods, accessors, constructors, arrow functions and function expressions.
 * A function's length is the lines from its first to its last (its signature and body, comments inside
 * included); a nested function is measured on its own lines too, and also counts in the function around it.
 * The exceptions (generated code, a parser whose one function is a grammar) are listed in EXCEPTIONS with
 * the reason; any other function over the limit fails the check.
 *
 * `--list` prints every function over the limit, exceptions included.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sourceFiles } from './check-layers.js';

export const LIMIT = 150;

const ROOTS = ['lib', 'local', 'functions', 'scripts', 'bench'];

/**
 * Functions allowed over the limit: `file` (from the root) and `name` as the report prints them, and why.
 * Only generated code and a parser whose one function is a grammar belong here; today none is that long
 * (the generated creature data holds no function, and the parsers are split by rule), so the list is empty.
 */
export const EXCEPTIONS: { file: string; name: string; reason: string }[] = [];

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export interface SizeReport {
  functions: number;
  long: LongFunction[];
  /** The long functions not in EXCEPTIONS. */
  failures: LongFunction[];
}

function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const named = (node as { name?: ts.Node }).name;
  if (named && (ts.isIdentifier(named) || ts.isPrivateIdentifier(named) || ts.isStringLiteral(named) || ts.isComputedPropertyName(named))) {
    return named.getText(file);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // An anonymous function takes the name it is bound to: `const f = () => …`, `{ f: () => … }`, `x.f = …`.
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(file);
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.left.getText(file);
  if (ts.isExportAssignment(parent)) return 'default';
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(file).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function in one source text, with its length in lines. */
export function measure(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function checkFunctionSize(root: string, exceptions = EXCEPTIONS): SizeReport {
  let functions = 0;
  const long: LongFunction[] = [];
  for (const file of ROOTS.flatMap((r) => sourceFiles(root, r, [], /\.(ts|cts|mts|js|cjs|mjs)$/))) {
    const all = measure(file, readFileSync(path.join(root, file), 'utf8'));
    functions += all.length;
    long.push(...all.filter((f) => f.lines > LIMIT));
  }
  const excepted = (f: LongFunction): boolean => exceptions.some((e) => e.file === f.file && e.name === f.name);
  return { functions, long, failures: long.filter((f) => !excepted(f)) };
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const report = checkFunctionSize(root);
  const show = (f: LongFunction): string => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`;
  if (process.argv.includes('--list')) for (const f of [...report.long].sort((a, b) => b.lines - a.lines)) console.log(show(f));
  for (const f of report.failures) console.error(`${show(f)} (over ${LIMIT}: split it by job, or add it to EXCEPTIONS in scripts/ci/check-function-size.ts with the reason)`);
  if (report.failures.length) process.exit(1);
  console.log(`${report.functions} functions, none over ${LIMIT} lines${EXCEPTIONS.length ? ` but the ${EXCEPTIONS.length} listed exceptions` : ''}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
