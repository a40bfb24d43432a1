/**
 * The implementations of the operations that run where their task becomes ready (`inline` on their
 * definition, lib/file-api/tasks/inline.ts), by name and alias: for the invocations that run them,
 * POST /v2/jobs and the step consumers. A test holds this list to the definitions that say `inline`.
 */
import type { StepRun } from './framework/define.js';
import type { Implementation } from './framework/types.js';
import { implement } from './framework/define.js';
import { copyInputs } from './export/url/copies.js';
import { exportUrl } from './export/url/operation.js';
import importBase64 from './import/base64/run.js';
import importRaw from './import/raw/run.js';

// export/url's copies only: a ZIP (archive_multiple_files) is not run inline (its definition says so).
const RUNS: readonly StepRun[] = [importBase64, importRaw, implement(exportUrl, copyInputs)] as unknown as readonly StepRun[];

export const INLINE_IMPLEMENTATIONS: Readonly<Record<string, Implementation>> = Object.fromEntries(
  RUNS.flatMap(({ definition, run }) => [definition.name, ...(definition.aliases ?? [])].map((name) => [name, run as unknown as Implementation])),
);
