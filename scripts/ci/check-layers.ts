/**
 * The layers of the tree, checked from the TypeScript imports (`npm run ci:layers`, run by `.ci/run` and by
 * test/unit/layers.test.ts). Three rules:
 *
 * 1. No cycle between folders: the graph whose nodes are folders (a file's own directory) and whose edges
 *    are imports, type-only imports included, has no strongly connected component of more than one folder.
 * 2. The groups of lib/ depend one way, in the order of LAYERS: a file may import its own group or a group
 *    listed before it, never one after it. docs/architecture.md draws the same list.
 * 3. Above lib/: the wiring (lib/wiring, which builds the clients, stores and logger) is imported only from
 *    functions/, local/, scripts/, bench/ and test/; the local emulator (local/) from nothing in lib/ or
 *    functions/.
 *
 * `--graph` prints the folder graph (one line a folder, with the folders it imports and how many imports).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The groups of lib/, lowest first. */
export const LAYERS = ['kernel', 'adapters', 'engines', 'access', 'http', 'web', 'file-api', 'google', 'graphql', 'wiring'] as const;

const ROOTS = ['lib', 'local', 'functions', 'scripts', 'bench', 'test'];

export interface Edge {
  from: string;
  to: string;
  files: string[];
}

export interface LayerReport {
  folders: number;
  edges: Edge[];
  cycles: string[][];
  violations: string[];
}

/** The source files under `dir` (relative to `root`), of the given extensions; declaration files left out. */
export function sourceFiles(root: string, dir: string, out: string[] = [], pattern = /\.(ts|cts|mts)$/): string[] {
  let entries: string[];
  try {
    entries = readdirSync(path.join(root, dir));
  } catch {
    return out;
  }
  for (const name of entries) {
    const rel = `${dir}/${name}`;
    if (name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(path.join(root, rel)).isDirectory()) sourceFiles(root, rel, out, pattern);
    else if (pattern.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The repository path a specifier names, or undefined for a package. */
function target(from: string, spec: string): string | undefined {
  if (spec.startsWith('#lib/')) return path.posix.join('lib', spec.slice(5));
  if (spec.startsWith('#functions/')) return path.posix.join('functions', spec.slice(11));
  if (spec.startsWith('./') || spec.startsWith('../')) return path.posix.join(path.posix.dirname(from), spec);
  return undefined;
}

const groupOf = (file: string): string | undefined => (file.startsWith('lib/') ? file.split('/')[1] : undefined);
const topOf = (file: string): string => file.split('/')[0]!;

/** Tarjan's strongly connected components, the ones of two or more nodes. */
function cycles(nodes: string[], next: (n: string) => string[]): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const n of nodes) if (!indices.has(n)) visit(n);
  return found;
}

export function checkLayers(root: string): LayerReport {
  const files = ROOTS.flatMap((r) => sourceFiles(root, r));
  const edges = new Map<string, Edge>();
  const violations: string[] = [];
  const folders = new Set<string>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const from = path.posix.dirname(file);
    if (file.startsWith('lib/') || file.startsWith('local/')) folders.add(from);
    for (const { fileName } of importedFiles) {
      const to = target(file, fileName);
      if (!to) continue;
      const toDir = path.posix.dirname(to);
      const [fromTop, toTop] = [topOf(file), topOf(to)];
      if (toTop === 'local' && (fromTop === 'lib' || fromTop === 'functions')) violations.push(`${file} imports the local emulator (${fileName})`);
      if (groupOf(to) === 'wiring' && fromTop === 'lib' && groupOf(file) !== 'wiring') violations.push(`${file} imports the wiring (${fileName}); pass what it needs in from functions/`);
      const [fromGroup, toGroup] = [groupOf(file), groupOf(to)];
      if (fromGroup && toGroup && fromGroup !== toGroup && toGroup !== 'wiring') {
        const [a, b] = [LAYERS.indexOf(fromGroup as never), LAYERS.indexOf(toGroup as never)];
        if (a < 0) violations.push(`${file}: lib/${fromGroup} is not a layer (add it to LAYERS in scripts/ci/check-layers.ts)`);
        else if (b < 0) violations.push(`${file} imports ${fileName}: lib/${toGroup} is not a layer`);
        else if (b > a) violations.push(`${file} (lib/${fromGroup}) imports ${fileName} (lib/${toGroup}, a layer above it)`);
      }
      // The folder graph: lib/ and local/ (functions, scripts and tests sit on top and import freely).
      if (!['lib', 'local'].includes(fromTop) || !['lib', 'local'].includes(toTop) || from === toDir) continue;
      const key = `${from} -> ${toDir}`;
      const edge = edges.get(key) ?? { from, to: toDir, files: [] };
      edge.files.push(file);
      edges.set(key, edge);
    }
  }
  const out = new Map<string, string[]>();
  for (const e of edges.values()) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  return { folders: folders.size, edges: [...edges.values()], cycles: cycles([...folders].sort(), (n) => out.get(n) ?? []), violations };
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const report = checkLayers(root);
  if (process.argv.includes('--graph')) {
    const by = new Map<string, Edge[]>();
    for (const e of report.edges) by.set(e.from, [...(by.get(e.from) ?? []), e]);
    for (const [from, list] of [...by].sort()) console.log(`${from} -> ${list.map((e) => `${e.to} (${e.files.length})`).sort().join(', ')}`);
  }
  for (const c of report.cycles) {
    console.error(`cycle between folders: ${c.join(', ')}`);
    for (const e of report.edges.filter((e) => c.includes(e.from) && c.includes(e.to))) console.error(`  ${e.from} -> ${e.to}: ${[...new Set(e.files)].join(', ')}`);
  }
  for (const v of report.violations) console.error(v);
  if (report.cycles.length || report.violations.length) process.exit(1);
  console.log(`${report.folders} folders, ${report.edges.length} folder-to-folder imports: no cycle; the layers of lib/ (${LAYERS.join(' < ')}) depend one way`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
