/**
 * Runs one step consumer the way Lambda does: its esbuild bundle alone in a fresh Node process, one
 * SQS-shaped event, then reports the process's peak resident memory (VmHWM). Used to measure a
 * consumer's memory without the rest of the local platform in the same process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles a handler as serverless-esbuild does (CommonJS, node22 target) into a temporary folder. */
export async function bundleHandler(entry: string): Promise<{ file: string; dispose(): void }> {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(path.join(tmpdir(), 'consumer-'));
  const file = path.join(dir, 'handler.cjs');
  await esbuild.build({
    entryPoints: [path.join(root, entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
    // As serverless.yml: ssh2's optional native CPU probe is not built, a stand-in takes its place.
    alias: { 'cpu-features': path.join(root, 'lib/wiring/no-cpu-features.cjs') },
  });
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Invokes the bundle's handler with `{taskId}` as one SQS record; returns peak RSS in MiB and the result. */
export async function invokeIsolated(bundle: string, taskId: string, env: Record<string, string>): Promise<{ peakRssMiB: number; result: unknown }> {
  const script = path.join(path.dirname(bundle), 'invoke.cjs');
  writeFileSync(
    script,
    `const { readFileSync } = require('node:fs');
const { handler } = require(${JSON.stringify(bundle)});
const event = { Records: [{ messageId: 'bench', receiptHandle: 'bench', body: JSON.stringify({ taskId: process.argv[2] }),
  attributes: { ApproximateReceiveCount: '1' }, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench', awsRegion: 'us-east-1' }] };
handler(event).then((result) => {
  const hwm = readFileSync('/proc/self/status', 'utf8').match(/^VmHWM:\\s+(\\d+) kB/m);
  process.stdout.write(JSON.stringify({ result, peakRssMiB: Number(hwm[1]) / 1024 }));
  process.exit(0);
}, (err) => { console.error(err); process.exit(1); });
`,
  );
  const { stdout } = await run(process.execPath, [script, taskId], { env: { ...process.env, ...env }, maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as { peakRssMiB: number; result: unknown };
}
