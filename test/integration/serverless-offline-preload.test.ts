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
  // `ctx`: a context as serverless-offline's in-process runner passes one (the function's time left).
  const script = `import { load } from ${JSON.stringify(pathToFileURL(userFunction).href)};\nconst ctx = { getRemainingTimeInMillis: () => 5000 };\n${body}`;
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
console.log(JSON.stringify({ same: a1 === a2, first: await a1({}, ctx), second: await b({}, ctx), evaluations: globalThis.evaluations }));
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
console.log(JSON.stringify({ same: before === after, answer: await after({}, ctx) }));
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
console.log(JSON.stringify({ failed, answer: await handler({}, ctx) }));
`);
    expect(out.failed).not.toBe('');
    expect(out.answer).toBe('now there');
  });
});

/** A context as serverless-offline's in-process runner makes one: the function's time left. */
const context = (ms: number) => `{ getRemainingTimeInMillis: () => ${ms} }`;
const httpEvent = "{ version: '2.0', rawPath: '/v2/jobs', requestContext: { http: { method: 'GET', path: '/v2/jobs' } } }";

describe('serverless-offline preload: failures and timeouts as in Lambda and API Gateway', () => {
  beforeAll(() => {
    writeFileSync(
      path.join(dir, 'fails.mjs'),
      `export const throws = async () => { throw new Error('the function broke'); };
export const hangs = () => new Promise(() => {});
export const answers = async () => ({ statusCode: 201, body: 'made' });
export const calls = (event, context, callback) => { setTimeout(() => callback(null, 'called back'), 10); };
`,
    );
  });

  it('answers an HTTP API request whose function throws with a 500 Internal Server Error, as API Gateway does', async () => {
    const out = await withPreload(`
const handler = await load(${JSON.stringify(dir)}, 'fails.throws');
console.log(JSON.stringify(await handler(${httpEvent}, ${context(5000)}, () => {})));
`);
    expect(out).toEqual({ statusCode: 500, headers: { 'content-type': 'application/json' }, body: '{"message":"Internal Server Error"}' });
  });

  it('answers an HTTP API request whose function runs out of time with a 500, after the function\'s timeout', async () => {
    const out = await withPreload(`
const handler = await load(${JSON.stringify(dir)}, 'fails.hangs');
const started = Date.now();
const answer = await handler(${httpEvent}, ${context(300)}, () => {});
console.log(JSON.stringify({ answer, ms: Date.now() - started }));
`);
    expect(out.answer.statusCode).toBe(500);
    expect(out.ms).toBeGreaterThanOrEqual(290);
  });

  it("fails any other invocation that runs out of time with Lambda's message, and one that throws with its error", async () => {
    const out = await withPreload(`
const dir = ${JSON.stringify(dir)};
const outcome = (p) => p.then((value) => ({ value }), (err) => ({ error: err.message }));
const hangs = await load(dir, 'fails.hangs');
const throws = await load(dir, 'fails.throws');
const sqsEvent = { Records: [{ messageId: 'm-1', body: '{}' }] };
console.log(JSON.stringify({
  timedOut: await outcome(hangs(sqsEvent, ${context(250)}, () => {})),
  threw: await outcome(throws(sqsEvent, ${context(5000)}, () => {})),
}));
`);
    expect(out).toEqual({ timedOut: { error: 'Task timed out after 0.25 seconds' }, threw: { error: 'the function broke' } });
  });

  it("passes answers through untouched, a callback's too, and keeps no timer once the function has answered", async () => {
    const started = Date.now();
    // A 60 s timeout: were its timer left running, this process would not exit for a minute.
    const out = await withPreload(`
const dir = ${JSON.stringify(dir)};
const answers = await load(dir, 'fails.answers');
const calls = await load(dir, 'fails.calls');
console.log(JSON.stringify({ answer: await answers(${httpEvent}, ${context(60_000)}, () => {}), called: await calls({}, ${context(60_000)}, () => {}) }));
`);
    expect(out).toEqual({ answer: { statusCode: 201, body: 'made' }, called: 'called back' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

