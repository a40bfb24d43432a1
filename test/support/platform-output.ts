/**
 * How the e2e tests start a platform: its output is kept (the last lines) and printed when a test
 * fails, so that a failure in CI shows what the functions logged; `E2E_VERBOSE=1` prints all of it
 * as it comes instead.
 */
export const e2eOutput: 'inherit' | 'capture' = process.env.E2E_VERBOSE ? 'inherit' : 'capture';
