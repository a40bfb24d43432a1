/**
 * The tiers hold (test/support/tiers.ts): every test file is in a tier's folder, and the fast tier imports
 * nothing that builds a bundle, starts a server or spawns a process, directly or through a test helper.
 * Checked on this repository and on small trees that break each rule.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileTree } from '../support/file-tree.js';
import { checkTiers } from '../support/tiers.js';

const quiet = "import { it } from 'vitest';\nit('holds', () => {});\n";
/** A test that imports `spec` only when it runs. */
const later = (spec: string) => `import { it } from 'vitest';\nit('x', async () => { await import('${spec}'); });\n`;

describe('the test tiers', () => {
  it('hold on this repository', () => {
    expect(checkTiers(path.resolve(import.meta.dirname, '../..'))).toEqual([]);
  });

  it('a fast test that bundles, archives, spawns, or starts a backend or the platform is refused, naming the tier it belongs to', () => {
    const problems = checkTiers(
      fileTree({
        'test/unit/ok.test.ts': `import { x } from '../support/recording-queue.js';\n${quiet}`,
        'test/support/recording-queue.ts': 'export const x = 1;\n',
        'test/unit/bundle.test.ts': `import { build } from 'esbuild';\n${quiet}`,
        'test/unit/zip.test.ts': `import { ZipArchive } from 'archiver';\n${quiet}`,
        'test/unit/spawn.test.ts': `import { spawn } from 'node:child_process';\n${quiet}`,
        'test/unit/later.test.ts': later('../../local/emulator.js'),
        'test/unit/roles.test.ts': `import { deriveAwsCalls } from '../../scripts/ci/aws-calls.js';\n${quiet}`,
      }),
    );
    expect(problems.sort()).toEqual([
      'test/unit/bundle.test.ts imports esbuild: builds bundles (test/bundles)',
      'test/unit/later.test.ts imports ../../local/emulator.js: starts the local emulator or its backends (test/e2e)',
      'test/unit/roles.test.ts imports ../../scripts/ci/aws-calls.js: compiles the whole service (test/bundles)',
      'test/unit/spawn.test.ts imports node:child_process: spawns processes (test/integration)',
      'test/unit/zip.test.ts imports archiver: writes archives (test/bundles)',
    ]);
  });

  it('so is a helper that starts a server, and a fast helper that comes to import a backend', () => {
    const problems = checkTiers(
      fileTree({
        'test/unit/a.test.ts': `import { startStateBackend } from '../support/dynalite.js';\n${quiet}`,
        'test/support/dynalite.ts': "import dynalite from 'dynalite';\nexport const startStateBackend = dynalite;\n",
        'test/unit/b.test.ts': `import { x } from '../support/operations.js';\n${quiet}`,
        'test/support/operations.ts': "import { y } from '../fixtures/y.js';\nexport const x = y;\n",
        'test/fixtures/y.ts': "import s3rver from 's3rver';\nexport const y = s3rver;\n",
      }),
    );
    expect(problems).toEqual([
      'test/unit/a.test.ts imports test/support/dynalite.ts, a helper the fast tier may not use (FAST_SUPPORT in test/support/tiers.ts)',
      'test/unit/b.test.ts → test/support/operations.ts → test/fixtures/y.ts imports s3rver: starts a backend (test/integration)',
    ]);
  });

  it('a test file outside the tier folders is refused (no script would run it alone)', () => {
    const problems = checkTiers(fileTree({ 'test/slow/x.test.ts': quiet, 'test/unit/deep/y.test.ts': quiet, 'test/integration/z.test.ts': quiet }));
    expect(problems).toEqual([
      'test/slow/x.test.ts is in no tier (test/<unit|bundles|integration|security|e2e>/*.test.ts)',
      'test/unit/deep/y.test.ts is in no tier (test/<unit|bundles|integration|security|e2e>/*.test.ts)',
    ]);
  });
});
