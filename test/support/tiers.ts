/**
 * The test tiers, and the rule that keeps the fast one fast (test/unit/tiers.test.ts). A tier is a folder
 * of test/; `npm run test:<tier>` runs one, `npm test` all of them. The fast tier (test/unit) holds
 * pure logic: a file there that imports what builds a bundle, starts a server or spawns a process would
 * make it slow again without anyone noticing, so its imports are checked (its own and those of the test
 * helpers it reaches, type-only imports included), not its durations.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Each tier's folder below test/, and what it holds. */
export const TIERS = {
  unit: 'pure logic: no server, no bundle build, no child process (npm run test:fast)',
  bundles: 'the function bundles and packaging checks: esbuild builds, zips, the explorer assets, the AWS calls of the code (npm run test:bundles)',
  integration: 'adapters, engines and route chains in-process against local backends on free ports (npm run test:integration)',
  security: 'one file per class of attack, against local backends or a platform (npm run test:security)',
  e2e: 'the whole platform under serverless-offline, driven over HTTP (npm run test:e2e)',
} as const;

/** What the fast tier may not import, and the tier such a test belongs to instead. */
const FORBIDDEN: Array<{ match: (spec: string) => boolean; why: string }> = [
  { match: (s) => s === 'esbuild', why: 'builds bundles (test/bundles)' },
  { match: (s) => s === 'archiver', why: 'writes archives (test/bundles)' },
  { match: (s) => /(^|\/)graphiql-assets-build(\.js)?$/.test(s), why: 'builds the explorer assets (test/bundles)' },
  { match: (s) => /(^|\/)scripts\/ci\/aws-calls(\.js)?$/.test(s), why: 'compiles the whole service (test/bundles)' },
  { match: (s) => /^(node:)?(child_process|worker_threads|cluster)$/.test(s), why: 'spawns processes (test/integration)' },
  { match: (s) => ['dynalite', 's3rver', 'serverless-offline', 'ssh2', 'azurite'].includes(s), why: 'starts a backend (test/integration)' },
  { match: (s) => /(^|\/)local\/(emulator|offline|backends)(\.js)?$/.test(s), why: 'starts the local emulator or its backends (test/e2e)' },
];

/** Helpers of test/ the fast tier may import: they start nothing and spawn nothing. */
export const FAST_SUPPORT = [
  'test/support/capacity-fixture.ts',
  'test/support/cloudconvert.ts',
  'test/support/file-tree.ts',
  'test/support/limits-stack.ts',
  'test/support/operations.ts',
  'test/support/recording-queue.ts',
  'test/support/requires.ts',
  'test/support/tiers.ts',
  'test/support/tool-skips.ts',
];

/** The files of `dir` (relative to root), recursively. */
function filesOf(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.posix.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...filesOf(root, rel));
    else out.push(rel);
  }
  return out;
}

/**
 * What a file imports, as written: static imports and re-exports (at the start of a line, so that a
 * test's sample source in a string is not read as its own), dynamic imports and requires. Regular
 * expressions rather than the compiler: loading TypeScript would cost this fast check 3 s.
 */
const IMPORTS = [/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*(['"])([^'"\n]+)\1/gm, /^\s*import\s*(['"])([^'"\n]+)\1/gm, /\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\1/g];
function importsOf(root: string, file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return IMPORTS.flatMap((re) => [...text.matchAll(re)].map((m) => m[2]!));
}

/** The file below root a relative specifier names (`.js` written for `.ts`), if it is in test/. */
function testFile(root: string, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
  if (!resolved.startsWith('test/')) return undefined;
  try {
    return statSync(path.join(root, resolved)).isFile() ? resolved : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What breaks the tiers below root: a test file outside every tier's folder, and in the fast tier a
 * forbidden import or a test helper not in FAST_SUPPORT (each with the chain of files that reaches it).
 */
export function checkTiers(root: string): string[] {
  const problems: string[] = [];
  for (const file of filesOf(root, 'test').filter((f) => f.endsWith('.test.ts'))) {
    const tier = file.split('/')[1]!;
    if (!(tier in TIERS) || file.split('/').length !== 3) problems.push(`${file} is in no tier (test/<${Object.keys(TIERS).join('|')}>/*.test.ts)`);
  }
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const via = [...chain, file].join(' → ');
    for (const spec of importsOf(root, file)) {
      const forbidden = FORBIDDEN.find((f) => f.match(spec));
      if (forbidden) problems.push(`${via} imports ${spec}: ${forbidden.why}`);
      const helper = testFile(root, file, spec);
      if (!helper || helper.startsWith('test/unit/')) continue;
      if (helper.startsWith('test/support/') && !FAST_SUPPORT.includes(helper)) problems.push(`${via} imports ${helper}, a helper the fast tier may not use (FAST_SUPPORT in test/support/tiers.ts)`);
      else visit(helper, [...chain, file]);
    }
  };
  for (const file of filesOf(root, 'test/unit').filter((f) => f.endsWith('.ts'))) visit(file, []);
  return problems;
}
