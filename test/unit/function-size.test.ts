/** No function over 150 lines (scripts/ci/check-function-size.ts): the check passes on this tree and fails on a tree with a longer one. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFunctionSize, EXCEPTIONS, LIMIT, measure } from '../../scripts/ci/check-function-size.js';
import { fileTree as tree } from '../support/file-tree.js';

/** A function of `lines` lines from its signature to its closing brace. */
const fn = (name: string, lines: number, indent = '') =>
  [`${indent}function ${name}() {`, ...Array.from({ length: lines - 2 }, (_, i) => `${indent}  const v${i} = ${i};`), `${indent}}`].join('\n');

describe('the size of functions', () => {
  it(`no function of this repository is over ${LIMIT} lines but the listed exceptions`, () => {
    const report = checkFunctionSize(path.resolve(import.meta.dirname, '../..'));
    expect(report.failures).toEqual([]);
    expect(report.functions).toBeGreaterThan(1000);
    // Every exception still names a long function: one that was split leaves the list.
    for (const e of EXCEPTIONS) expect(report.long.some((f) => f.file === e.file && f.name === e.name)).toBe(true);
  });

  it(`a ${LIMIT + 1}-line function fails, a ${LIMIT}-line one passes, wherever it is`, () => {
    const report = checkFunctionSize(
      tree({
        'local/a.ts': `${fn('long', LIMIT + 1)}\n${fn('fits', LIMIT)}\n`,
        'scripts/b.cjs': `module.exports = { run: ${fn('inner', LIMIT + 1).replace('function inner', 'function')} };\n`,
        'test/c.ts': fn('ignored', LIMIT + 50),
      }),
    );
    expect(report.failures.map((f) => `${f.file} ${f.name} ${f.lines}`).sort()).toEqual([`local/a.ts long ${LIMIT + 1}`, `scripts/b.cjs run ${LIMIT + 1}`]);
  });

  it('measures methods, arrow functions and nested functions on their own lines', () => {
    const nested = fn('inner', 10, '  ').split('\n');
    const text = ['class C {', '  method() {', '    return 1;', '  }', '}', 'const arrow = () => {', ...nested, '};', ''].join('\n');
    const found = measure('x.ts', text).map((f) => `${f.name}:${f.line}:${f.lines}`);
    expect(found).toEqual(['method:2:3', 'arrow:6:12', 'inner:7:10']);
  });

  it('an exception lets its function through, and only that one', () => {
    const root = tree({ 'lib/p.ts': `${fn('grammar', LIMIT + 1)}\n${fn('other', LIMIT + 1)}\n` });
    const report = checkFunctionSize(root, [{ file: 'lib/p.ts', name: 'grammar', reason: 'a parser whose one function is a grammar' }]);
    expect(report.long).toHaveLength(2);
    expect(report.failures.map((f) => f.name)).toEqual(['other']);
  });
});
