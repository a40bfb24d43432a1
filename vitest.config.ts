import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every tier (a folder of test/: unit, bundles, integration, security, e2e; test/support/tiers.ts);
    // `npm run test:<tier>` runs one with these same settings, `npm test` all of them.
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration and e2e suites start real servers; two cores, so keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
    // Tests that need a missing tool skip with the reason (or fail under REQUIRE_ALL_TOOLS=1); the
    // run ends with a summary of them (test/support/requires.ts).
    globalSetup: ['test/support/tool-skips.ts'],
    // A failed test shows the last lines of the platform it ran against (test/support/platform-output.ts).
    setupFiles: ['test/support/print-platform-output.ts'],
    // One error is not the test's: dynalite (the local DynamoDB) rejects, with nothing to catch it, an
    // operation that a killed functions process had sent just as the emulator closes the database. It
    // is ignored by its message and its origin in dynalite's own code; any other unhandled error fails the run.
    onUnhandledError: (error) => !(error.message === 'Database is closed' && /node_modules\/dynalite\//.test(error.stack ?? '')),
  },
});
