/**
 * Runs the checks every PDF gets before an engine touches it (`checkPdfPages`: what the process step
 * does) on one file, in a process of its own, and prints how long it took, how it ended and the
 * process's peak RSS. Used by decompression-bombs.test.ts: `node --import tsx pdf-bomb-child.ts <file> [qpdf]`.
 */
import path from 'node:path';
import { parseEngineConfig } from '#lib/kernel/config.js';
import { confinement } from '#lib/engines/core/confine.js';
import { checkPdfPages } from '#lib/engines/core/limits.js';

const [file, qpdf = '/nonexistent/qpdf'] = process.argv.slice(2);
const limits = parseEngineConfig({ QPDF_PATH: qpdf });
const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;
const started = performance.now();
let outcome: { code: string; message: string };
try {
  const pages = await checkPdfPages('bomb.pdf', file!, limits, { cwd: path.dirname(file!), workDir: path.dirname(file!), confinement: confinement(limits), signal: new AbortController().signal });
  outcome = { code: 'ACCEPTED', message: `${pages} pages` };
} catch (err) {
  outcome = { code: (err as { code?: string }).code ?? (err as Error).name, message: (err as Error).message };
}
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ...outcome, ms, rssBeforeMB, maxRssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
