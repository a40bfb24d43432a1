/** The tree's layers hold (scripts/ci/check-layers.ts): the check passes on this tree and fails on a tree that breaks each rule. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayers } from '../../scripts/ci/check-layers.js';
import { fileTree as tree } from '../support/file-tree.js';

describe('the layers of the tree', () => {
  it('hold on this repository', () => {
    const report = checkLayers(path.resolve(import.meta.dirname, '../..'));
    expect(report.cycles).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.folders).toBeGreaterThan(40);
  });

  it('a cycle between two folders is found, type-only imports included', () => {
    const report = checkLayers(
      tree({
        'lib/file-api/a/x.ts': "import type { Y } from '../b/y.js';\nexport type X = Y;\n",
        'lib/file-api/b/y.ts': "import { x } from '../a/x.js';\nexport type Y = typeof x;\n",
      }),
    );
    expect(report.cycles).toEqual([['lib/file-api/a', 'lib/file-api/b']]);
  });

  it('an import from a lower layer up, of the wiring from lib/, or of the emulator is refused', () => {
    const report = checkLayers(
      tree({
        'lib/kernel/k.ts': "import { t } from '../file-api/tasks/t.js';\n",
        'lib/file-api/tasks/t.ts': "import { w } from '#lib/wiring/w.js';\nexport const t = w;\n",
        'lib/wiring/w.ts': 'export const w = 1;\n',
        'functions/f.ts': "import { e } from '../local/e.js';\n",
        'local/e.ts': 'export const e = 1;\n',
      }),
    );
    expect(report.violations).toHaveLength(3);
    expect(report.violations).toEqual(expect.arrayContaining([
      expect.stringContaining('lib/kernel/k.ts (lib/kernel) imports ../file-api/tasks/t.js (lib/file-api, a layer above it)'),
      expect.stringContaining('lib/file-api/tasks/t.ts imports the wiring'),
      expect.stringContaining('functions/f.ts imports the local emulator'),
    ]));
  });
});
