/**
 * Setup file (vitest.config.ts): when a test fails, prints the last lines of every platform its file
 * started with `output: 'capture'` (test/support/platform-output.ts). Loaded only then, so that test
 * files without a platform do not import it.
 */
import { beforeEach } from 'vitest';

beforeEach((ctx) => {
  ctx.onTestFailed(async () => {
    const { capturedOutput } = await import('../../local/offline.js');
    const output = capturedOutput();
    if (output) console.error(`What the platform wrote before "${ctx.task.name}" failed:\n${output}`);
  });
});
