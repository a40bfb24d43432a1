/**
 * scripts/serverless-offline-http.cjs, preloaded into serverless-offline by the local platform, keeps
 * each function's handler once it is loaded, as Lambda keeps it for the life of an execution
 * environment. Run in a Node process of its own with the preload, through serverless-offline's own
 * loader imported as its in-process runner imports it: each handler string still gets its own
 * function, and a handler that failed to load is loaded at the next invocation once it can be.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const preload = path.join(root, 'scripts', 'serverless-offline-http.cjs');
const userFunction = path.join(
  root,
  'node_modules/serverless-offline/src/lambda/handler-runner/in-process-runner/aws-lambda-ric/UserFunction.js',
);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'offline-preload-'));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  // Two handlers in one module; the module counts its evaluations.
  writeFileSync(
    path.join(dir, 'pair.mjs'),
    `globalThis.evaluations = (globalThis.evaluations ?? 0) + 1;
export const first = async () => 'first';
export const second = async () => 'second';
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` (an ES module with `load` imported as serverless-offline imports it) with the preload; its last line is JSON. */
async function withPreload(body: string): Promise<any> {
  const script = `import { load } from ${JSON.stringify(pathToFileURL(userFunction).href)};\n${body}`;
  const { stdout } = await run(process.execPath, ['--require', preload, '--input-type=module', '-e', script], { cwd: root });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('serverless-offline preload: handlers loaded once', () => {
  it('gives each handler string its own function and the same one at every invocation', async () => {
    const out = await withPreload(`
const dir = ${JSON.stringify(dir)};
const a1 = await load(dir, 'pair.first');
const a2 = await load(dir, 'pair.first');
const b = await load(dir, 'pair.second');
console.log(JSON.stringify({ same: a1 === a2, first: await a1(), second: await b(), evaluations: globalThis.evaluations }));
`);
    expect(out).toEqual({ same: true, first: 'first', second: 'second', evaluations: 1 });
  });

  it('does not look for the module again once its handler is loaded', async () => {
    // serverless-offline's own loader checks the file and imports it at every invocation; with the
    // preload a loaded handler is kept, so a module file gone after loading no longer matters.
    writeFileSync(path.join(dir, 'gone.mjs'), "export const handler = async () => 'still here';");
    const out = await withPreload(`
import { rmSync } from 'node:fs';
const dir = ${JSON.stringify(dir)};
const before = await load(dir, 'gone.handler');
rmSync(dir + '/gone.mjs');
const after = await load(dir, 'gone.handler');
console.log(JSON.stringify({ same: before === after, answer: await after() }));
`);
    expect(out).toEqual({ same: true, answer: 'still here' });
  });

  it('loads a handler at the next invocation when the previous load failed', async () => {
    const out = await withPreload(`
import { writeFileSync } from 'node:fs';
const dir = ${JSON.stringify(dir)};
let failed = '';
try {
  await load(dir, 'late.handler');
} catch (err) {
  failed = err.name;
}
writeFileSync(dir + '/late.mjs', "export const handler = async () => 'now there';");
const handler = await load(dir, 'late.handler');
console.log(JSON.stringify({ failed, answer: await handler() }));
`);
    expect(out.failed).not.toBe('');
    expect(out.answer).toBe('now there');
  });
});
