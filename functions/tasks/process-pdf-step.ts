/** Consumer of the pdf family's process queue: the tasks that run on its engines (lib/engines/families.ts), and only those engines in its package. */
import { familyImplementations } from '#lib/operations/engine-operations.js';
import { PDF_FAMILY } from '#lib/operations/families/pdf.js';
import { stepConsumer } from '#lib/tasks/step-consumer.js';
import { FAMILY_QUEUES } from '#lib/engines/families.js';

export const handler = stepConsumer('process', familyImplementations(PDF_FAMILY), FAMILY_QUEUES.pdf);

/**
 * serverless-esbuild packs into a function's zip the externals its bundle names in an import. The
 * WebAssembly Ghostscript and qpdf (lib/engines/shipped.ts) are read as files, so they are named here,
 * in a branch that never runs, for this function only.
 */
if (Date.now() < 0) void Promise.all([import('@okathira/ghostpdl-wasm'), import('@neslinesli93/qpdf-wasm')]);
