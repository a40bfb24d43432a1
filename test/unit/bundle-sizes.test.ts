/**
 * scripts/ci/bundle-sizes.ts on a made-up `.serverless` folder: a template with HTTP and queue
 * functions and their zips (written with archiver, deflated and stored entries), run as CI runs it.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ZipArchive } from 'archiver';
import { afterAll, describe, expect, it } from 'vitest';
import { artifactSizes, readZip } from '../../scripts/ci/bundle-sizes.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface FakeFunction {
  key: string;
  handler: string;
  http: 'integration' | 'permission' | false;
  files: Record<string, Buffer | string>;
  store?: boolean;
}

async function writeZip(file: string, files: Record<string, Buffer | string>, store = false): Promise<void> {
  const archive = new ZipArchive({ zlib: { level: 6 }, store });
  const out = createWriteStream(file);
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', () => resolve());
    archive.on('error', reject);
  });
  archive.pipe(out);
  for (const [name, body] of Object.entries(files)) archive.append(body, { name });
  await archive.finalize();
  await closed;
}

const logicalId = (key: string) => `${key[0]!.toUpperCase()}${key.slice(1)}LambdaFunction`;

async function fakeServerlessDir(functions: FakeFunction[]): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bundle-sizes-'));
  dirs.push(dir);
  const resources: Record<string, unknown> = { HttpApi: { Type: 'AWS::ApiGatewayV2::Api', Properties: {} } };
  for (const fn of functions) {
    const id = logicalId(fn.key);
    resources[id] = {
      Type: 'AWS::Lambda::Function',
      Properties: { Handler: fn.handler, Code: { S3Bucket: { Ref: 'ServerlessDeploymentBucket' }, S3Key: `serverless/svc/dev/123/${fn.key}.zip` } },
    };
    if (fn.http === 'integration') {
      resources[`HttpApiIntegration${fn.key}`] = {
        Type: 'AWS::ApiGatewayV2::Integration',
        Properties: { ApiId: { Ref: 'HttpApi' }, IntegrationType: 'AWS_PROXY', IntegrationUri: { 'Fn::GetAtt': [id, 'Arn'] } },
      };
    } else if (fn.http === 'permission') {
      resources[`${id}PermissionHttpApi`] = {
        Type: 'AWS::Lambda::Permission',
        Properties: { FunctionName: { 'Fn::GetAtt': [id, 'Arn'] }, Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' },
      };
    } else {
      resources[`${id}EventSourceMapping`] = {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: { FunctionName: { 'Fn::GetAtt': [id, 'Arn'] }, EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
      };
    }
    await writeZip(path.join(dir, `${fn.key}.zip`), fn.files, fn.store);
  }
  writeFileSync(path.join(dir, 'cloudformation-template-update-stack.json'), JSON.stringify({ Resources: resources }));
  return dir;
}

/** Compressible text of a given length, as a bundle is. */
const js = (bytes: number) => Buffer.from('module.exports.handler = async () => 1;\n'.repeat(Math.ceil(bytes / 40))).subarray(0, bytes);
const map = (withSources: boolean) => JSON.stringify({ version: 3, sources: ['../../lib/a.ts'], mappings: 'AAAA', ...(withSources ? { sourcesContent: ['export const a = 1;'] } : {}) });

async function check(dir: string, ...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/ci/bundle-sizes.ts', '--dir', dir, ...args]);
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout + e.stderr };
  }
}

describe('the bundle-size check', () => {
  it('reads deflated and stored zips from their central directory, sizes and contents alike', async () => {
    const dir = await fakeServerlessDir([
      { key: 'deflated', handler: 'functions/a.handler', http: 'integration', files: { 'functions/a.cjs': js(300_000), 'x/y.bin': randomBytes(1000) } },
      { key: 'stored', handler: 'functions/b.handler', http: 'integration', files: { 'functions/b.cjs': js(5000) }, store: true },
    ]);
    const deflated = await readZip(path.join(dir, 'deflated.zip'));
    expect(deflated.entries.map((e) => [e.name, e.size])).toEqual([
      ['functions/a.cjs', 300_000],
      ['x/y.bin', 1000],
    ]);
    expect(deflated.entries[0]!.compressedSize).toBeLessThan(20_000);
    expect((await deflated.read(deflated.entries[0]!)).equals(js(300_000))).toBe(true);
    const stored = await readZip(path.join(dir, 'stored.zip'));
    expect((await stored.read(stored.entries[0]!)).toString()).toBe(js(5000).toString());
  });

  it('passes and prints every function with its zip, unzipped and bundle sizes when each HTTP bundle is within the limit', async () => {
    const dir = await fakeServerlessDir([
      { key: 'usersMe', handler: 'functions/account/users-me.handler', http: 'integration', files: { 'functions/account/users-me.cjs': js(900_000), 'functions/account/users-me.cjs.map': map(false) } },
      { key: 'fallback', handler: 'functions/fallback/not-found.handler', http: 'permission', files: { 'functions/fallback/not-found.cjs': js(100_000) } },
      { key: 'processStep', handler: 'functions/tasks/process-step.handler', http: false, files: { 'functions/tasks/process-step.cjs': js(3_000_000) } },
    ]);
    const { code, stdout } = await check(dir);
    expect(code).toBe(0);
    const row = stdout.split('\n').find((l) => l.startsWith('usersMe'));
    expect(row).toMatch(/usersMe\s+http\s+[\d.]+ MB\s+[\d.]+ MB\s+0\.90 MB/);
    expect(stdout).toMatch(/processStep\s+-\s+/);
    expect(stdout).toContain('fallback');

    const sizes = await artifactSizes(dir);
    expect(sizes.find((s) => s.name === 'processStep')).toMatchObject({ http: false, bundleBytes: 3_000_000 });
    expect(sizes.find((s) => s.name === 'fallback')).toMatchObject({ http: true, bundleBytes: 100_000 });
  });

  it('fails naming the HTTP function whose bundle is over the limit (a queue consumer over it is only listed)', async () => {
    const dir = await fakeServerlessDir([
      { key: 'graphql', handler: 'functions/graphql/handler.handler', http: 'integration', files: { 'functions/graphql/handler.cjs': js(1_600_000) } },
      { key: 'importStep', handler: 'functions/tasks/import-step.handler', http: false, files: { 'functions/tasks/import-step.cjs': js(4_000_000) } },
    ]);
    const { code, stdout } = await check(dir);
    expect(code).toBe(1);
    expect(stdout).toMatch(/graphql: bundle functions\/graphql\/handler\.cjs is 1\.60 MB, over the 1\.50 MB limit/);
    expect(stdout).not.toMatch(/importStep: bundle/);
    expect((await check(dir, '--limit', '2000000')).code).toBe(0);
  });

  it('fails when an HTTP function ships a source map with its sources inside', async () => {
    const dir = await fakeServerlessDir([
      { key: 'jobsGet', handler: 'functions/jobs/get.handler', http: 'integration', files: { 'functions/jobs/get.cjs': js(1000), 'functions/jobs/get.cjs.map': map(true) } },
    ]);
    const { code, stdout } = await check(dir);
    expect(code).toBe(1);
    expect(stdout).toContain('jobsGet: functions/jobs/get.cjs.map carries sourcesContent');
  });

  it('fails when a function of the template has no zip or its zip lacks the handler bundle', async () => {
    const dir = await fakeServerlessDir([
      { key: 'tasksGet', handler: 'functions/tasks/get.handler', http: 'integration', files: { 'functions/other.cjs': js(1000) } },
    ]);
    const { code, stdout } = await check(dir);
    expect(code).toBe(1);
    expect(stdout).toContain('tasksGet: no bundle for handler functions/tasks/get.handler');
    rmSync(path.join(dir, 'tasksGet.zip'));
    const missing = await check(dir);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/tasksGet\.zip/);
  });
});
