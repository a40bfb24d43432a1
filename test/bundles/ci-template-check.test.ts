/**
 * The CI invariant checker (scripts/ci/check-template.ts) on small synthetic templates: each invariant
 * broken once gives one failure naming the resource; the good template passes. Zips are real archives
 * made with archiver in a temporary folder.
 */
import { ZipArchive } from 'archiver';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTemplate, type Template } from '../../scripts/ci/check-template.js';
import { extractZip, readZipEntries } from '../../scripts/ci/zip.js';

let dir: string;
const MB = 1024 * 1024;

type Entry = { name: string; data?: Buffer | string | (() => Readable); mode?: number; symlink?: string };
async function writeZip(file: string, entries: Entry[]) {
  const archive = new ZipArchive({ zlib: { level: 1 } });
  const done = pipeline(archive, createWriteStream(file));
  for (const e of entries) {
    if (e.symlink) archive.symlink(e.name, e.symlink, 0o777);
    else archive.append(typeof e.data === 'function' ? e.data() : (e.data ?? ''), { name: e.name, mode: e.mode });
  }
  await archive.finalize();
  await done;
}

const zeros = (bytes: number) => () =>
  Readable.from(
    (function* () {
      const chunk = Buffer.alloc(MB);
      for (let left = bytes; left > 0; left -= MB) yield left >= MB ? chunk : chunk.subarray(0, left);
    })(),
  );

const getAtt = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** A queue with its DLQ and consumer, an HTTP function, an EventBridge-invoked function with a failure destination. */
function goodTemplate(): Template & { Resources: Record<string, { Type: string; Properties: any }> } {
  return {
    Resources: {
      WorkQueue: {
        Type: 'AWS::SQS::Queue',
        Properties: { VisibilityTimeout: 600, RedrivePolicy: { deadLetterTargetArn: getAtt('WorkDlq'), maxReceiveCount: 5 } },
      },
      WorkDlq: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 1209600 } },
      WorkerFunction: {
        Type: 'AWS::Lambda::Function',
        Properties: { FunctionName: 'svc-worker', Handler: 'functions/worker.handler', Timeout: 100, Code: { S3Key: 'deploy/worker.zip' } },
      },
      WorkerMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: { EventSourceArn: getAtt('WorkQueue'), FunctionName: getAtt('WorkerFunction'), BatchSize: 1, ScalingConfig: { MaximumConcurrency: 2 } },
      },
      ApiFunction: {
        Type: 'AWS::Lambda::Function',
        Properties: { Handler: 'functions/api.handler', Timeout: 29, Code: { S3Key: 'deploy/api.zip' } },
      },
      ApiIntegration: { Type: 'AWS::ApiGatewayV2::Integration', Properties: { IntegrationType: 'AWS_PROXY', IntegrationUri: getAtt('ApiFunction') } },
      // Holds a request until its job ends: its own concurrency, and a waits budget a little below it.
      WaitFunction: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          FunctionName: 'svc-wait',
          Handler: 'functions/wait.handler',
          Timeout: 29,
          ReservedConcurrentExecutions: 50,
          Environment: { Variables: { WAIT_BUDGET: '40' } },
          Code: { S3Key: 'deploy/wait.zip' },
        },
      },
      WaitIntegration: { Type: 'AWS::ApiGatewayV2::Integration', Properties: { IntegrationType: 'AWS_PROXY', IntegrationUri: getAtt('WaitFunction') } },
      UploadFunction: {
        Type: 'AWS::Lambda::Function',
        Properties: { FunctionName: 'svc-upload', Handler: 'functions/upload.handler', Timeout: 120, Code: { S3Key: 'deploy/upload.zip' } },
      },
      UploadRule: {
        Type: 'AWS::Events::Rule',
        Properties: { EventPattern: { source: ['aws.s3'] }, Targets: [{ Arn: getAtt('UploadFunction'), Id: 'upload' }] },
      },
      UploadInvokeConfig: {
        Type: 'AWS::Lambda::EventInvokeConfig',
        Properties: { FunctionName: { Ref: 'UploadFunction' }, Qualifier: '$LATEST', DestinationConfig: { OnFailure: { Destination: getAtt('WorkDlq') } } },
      },
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ci-template-check-'));
  await writeZip(path.join(dir, 'worker.zip'), [{ name: 'functions/worker.cjs', data: zeros(2 * MB) }]);
  await writeZip(path.join(dir, 'api.zip'), [
    { name: 'functions/api.cjs', data: 'exports.handler = async () => ({ statusCode: 200 });' },
    { name: 'functions/api.cjs.map', data: JSON.stringify({ version: 3, sources: ['../lib/api.ts'], names: [], mappings: 'A'.repeat(3 * MB) }) },
  ]);
  await writeZip(path.join(dir, 'upload.zip'), [{ name: 'functions/upload.cjs', data: 'exports.handler = async () => {};' }]);
  await writeZip(path.join(dir, 'wait.zip'), [{ name: 'functions/wait.cjs', data: 'exports.handler = async () => ({ body: await waitFor(read, done, 25000) });' }]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('check-template', () => {
  it('passes a template that keeps every invariant (an HTTP handler under 1.5 MB beside a larger source map, a 2 MB consumer bundle)', async () => {
    const report = await checkTemplate(goodTemplate(), dir);
    expect(report.failures).toEqual([]);
    expect(report.functions.find((f) => f.id === 'ApiFunction')).toMatchObject({ triggers: ['http'] });
    expect(report.functions.find((f) => f.id === 'WorkerFunction')).toMatchObject({ triggers: ['sqs:WorkQueue'], bundle: 2 * MB });
    expect(report.queues.find((q) => q.id === 'WorkQueue')).toMatchObject({ needed: 600, maxReceiveCount: 5, deadLetterQueue: 'WorkDlq' });
  });

  it("fails an HTTP API whose CORS preflight would refuse a header browser clients send (GraphQL's CSRF headers, Google's field mask)", async () => {
    const t = goodTemplate();
    t.Resources.HttpApi = {
      Type: 'AWS::ApiGatewayV2::Api',
      Properties: { ProtocolType: 'HTTP', CorsConfiguration: { AllowHeaders: ['Authorization', 'Content-Type', 'X-GraphQL-Yoga-CSRF', 'X-Goog-FieldMask'] } },
    };
    t.Resources.SocketsApi = { Type: 'AWS::ApiGatewayV2::Api', Properties: { ProtocolType: 'WEBSOCKET' } };
    expect((await checkTemplate(t, dir)).failures).toEqual(['HttpApi: CORS AllowHeaders lacks apollo-require-preflight, which browser clients send']);
    t.Resources.HttpApi.Properties.CorsConfiguration.AllowHeaders.push('Apollo-Require-Preflight');
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a visibility timeout below 6 × the consumer timeout, naming queue and function', async () => {
    const t = goodTemplate();
    t.Resources.WorkQueue!.Properties.VisibilityTimeout = 180;
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(["WorkQueue: VisibilityTimeout 180 s is below 6 × WorkerFunction's Timeout 100 s = 600 s"]);
  });

  it('adds the batching window to what the queue needs, and finds the consumer by function name too', async () => {
    const t = goodTemplate();
    t.Resources.WorkerMapping!.Properties.MaximumBatchingWindowInSeconds = 10;
    t.Resources.WorkerMapping!.Properties.FunctionName = 'svc-worker';
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(["WorkQueue: VisibilityTimeout 600 s is below 6 × WorkerFunction's Timeout 100 s + batching window 10 s = 610 s"]);
  });

  it('checks a dead-letter queue that a function consumes like any consumed queue (default visibility 30 s)', async () => {
    const t = goodTemplate();
    t.Resources.DlqMapping = {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { EventSourceArn: getAtt('WorkDlq'), FunctionName: { Ref: 'UploadFunction' }, ScalingConfig: { MaximumConcurrency: 2 } },
    };
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(["WorkDlq: VisibilityTimeout 30 s is below 6 × UploadFunction's Timeout 120 s = 720 s"]);
  });

  it('fails a queue without a redrive policy, but not the dead-letter queue', async () => {
    const t = goodTemplate();
    delete t.Resources.WorkQueue!.Properties.RedrivePolicy;
    t.Resources.OtherDlq = { Type: 'AWS::SQS::Queue', Properties: {} };
    t.Resources.Other = { Type: 'AWS::SQS::Queue', Properties: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: getAtt('OtherDlq'), maxReceiveCount: 7 }) } };
    const { failures } = await checkTemplate(t, dir);
    // WorkDlq is no longer anybody's dead-letter queue: it needs a redrive policy of its own.
    expect(failures.sort()).toEqual(['WorkDlq: no RedrivePolicy (no dead-letter queue)', 'WorkQueue: no RedrivePolicy (no dead-letter queue)']);
  });

  it('fails maxReceiveCount below 5', async () => {
    const t = goodTemplate();
    t.Resources.WorkQueue!.Properties.RedrivePolicy.maxReceiveCount = 3;
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(['WorkQueue: RedrivePolicy maxReceiveCount 3 is below 5']);
  });

  it('fails an SQS event source without MaximumConcurrency', async () => {
    const t = goodTemplate();
    delete t.Resources.WorkerMapping!.Properties.ScalingConfig;
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(['WorkerMapping: no ScalingConfig.MaximumConcurrency on the SQS event source of WorkerFunction']);
  });

  it('fails an EventBridge-invoked function without a failure destination; a rule target DLQ is not enough', async () => {
    const t = goodTemplate();
    delete t.Resources.UploadInvokeConfig;
    t.Resources.UploadRule!.Properties.Targets[0].DeadLetterConfig = { Arn: getAtt('WorkDlq') };
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual([
      'UploadFunction: invoked asynchronously (EventBridge rule UploadRule) without a failure destination (an EventInvokeConfig with DestinationConfig.OnFailure, or a DeadLetterConfig)',
    ]);
  });

  it('accepts a DeadLetterConfig on the function as its failure path', async () => {
    const t = goodTemplate();
    delete t.Resources.UploadInvokeConfig;
    t.Resources.UploadFunction!.Properties.DeadLetterConfig = { TargetArn: getAtt('WorkDlq') };
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('counts schedules, S3 notifications and SNS subscriptions as asynchronous invocations', async () => {
    const t = goodTemplate();
    t.Resources.Tick = { Type: 'AWS::Events::Rule', Properties: { ScheduleExpression: 'rate(5 minutes)', Targets: [{ Arn: getAtt('ApiFunction'), Id: 't' }] } };
    t.Resources.Bucket = {
      Type: 'AWS::S3::Bucket',
      Properties: { NotificationConfiguration: { LambdaConfigurations: [{ Event: 's3:ObjectCreated:*', Function: getAtt('WorkerFunction') }] } },
    };
    t.Resources.Sub = { Type: 'AWS::SNS::Subscription', Properties: { Protocol: 'lambda', Endpoint: 'arn:aws:lambda:us-east-1:1:function:svc-upload', TopicArn: 'x' } };
    const { failures } = await checkTemplate(t, dir);
    expect(failures.map((f) => f.split(':')[0]).sort()).toEqual(['ApiFunction', 'WorkerFunction']);
    expect(failures.join('\n')).toContain('schedule Tick');
    expect(failures.join('\n')).toContain('S3 notification of Bucket');
  });

  it('fails an artifact over 250 MB unzipped, and a missing one', async () => {
    await writeZip(path.join(dir, 'big.zip'), [
      { name: 'functions/upload.cjs', data: 'exports.handler = async () => {};' },
      { name: 'node_modules/huge/blob.bin', data: zeros(251 * MB) },
    ]);
    const t = goodTemplate();
    t.Resources.UploadFunction!.Properties.Code.S3Key = 'deploy/big.zip';
    t.Resources.ApiFunction!.Properties.Code.S3Key = 'deploy/gone.zip';
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual([
      `ApiFunction: artifact ${path.join(dir, 'gone.zip')} not found`,
      "UploadFunction: 251.00 MB unzipped (big.zip), above Lambda's 250.00 MB",
    ]);
  });

  it('fails an HTTP handler bundle over 1.5 MB (a consumer bundle of 2 MB is fine)', async () => {
    await writeZip(path.join(dir, 'fat-api.zip'), [{ name: 'functions/api.cjs', data: zeros(1_600_000) }]);
    const t = goodTemplate();
    t.Resources.ApiFunction!.Properties.Code.S3Key = 'deploy/fat-api.zip';
    const { failures } = await checkTemplate(t, dir);
    expect(failures).toEqual(['ApiFunction: HTTP handler bundle functions/api.cjs is 1.60 MB, above 1.5 MB']);
  });

  it('fails an HTTP function whose source map carries its sources', async () => {
    const map = (sourcesContent: unknown) => JSON.stringify({ version: 3, sources: ['../lib/api.ts'], names: [], mappings: 'AAAA', sourcesContent });
    await writeZip(path.join(dir, 'mapped-api.zip'), [
      { name: 'functions/api.cjs', data: 'exports.handler = async () => ({});' },
      { name: 'functions/api.cjs.map', data: map(['export const handler = …']) },
    ]);
    const t = goodTemplate();
    t.Resources.ApiFunction!.Properties.Code.S3Key = 'deploy/mapped-api.zip';
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^ApiFunction: functions\/api\.cjs\.map carries its sources/)]);
    await writeZip(path.join(dir, 'mapped-api.zip'), [
      { name: 'functions/api.cjs', data: 'exports.handler = async () => ({});' },
      { name: 'functions/api.cjs.map', data: map([null]) },
    ]);
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });
  it('fails a function serving the Google APIs without enforced authentication', async () => {
    const t = goodTemplate();
    t.Resources.ApiFunction!.Properties.Environment = { Variables: { GOOGLE_AUTH_MODE: 'open' } };
    t.Resources.GoogleRoute = { Type: 'AWS::ApiGatewayV2::Route', Properties: { RouteKey: 'ANY /v1/{proxy+}', Target: { 'Fn::Join': ['/', ['integrations', { Ref: 'ApiIntegration' }]] } } };
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^ApiFunction: serves the Google APIs with GOOGLE_AUTH_MODE=open/)]);
    t.Resources.ApiFunction!.Properties.Environment.Variables.GOOGLE_AUTH_MODE = 'enforced';
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a function given the local one-click sign-in link (npm start only)', async () => {
    const t = goodTemplate();
    t.Resources.ApiFunction!.Properties.Environment = { Variables: { LOCAL_SIGN_IN_LINK_HASH: 'a'.repeat(64) } };
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^ApiFunction: LOCAL_SIGN_IN_LINK_HASH is set/)]);
    t.Resources.ApiFunction!.Properties.Environment = { Variables: {} };
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a task consumer whose tasks may run as long as the function itself', async () => {
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.Environment = { Variables: { TASK_MAX_SECONDS: '100' } };
    // Other consumers may carry the setting (it is stack-wide) without running tasks.
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
    t.Resources.WorkerFunction!.Properties.Handler = 'functions/tasks/work-step.handler';
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: TASK_MAX_SECONDS 100 is not below its Timeout 100/)]);
    t.Resources.WorkerFunction!.Properties.Environment.Variables.TASK_MAX_SECONDS = '85';
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a processing function whose input limit leaves no room in its /tmp for outputs', async () => {
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.Environment = { Variables: { ENGINE_MAX_INPUT_BYTES: String(1024 * MB), TASK_MAX_OUTPUT_BYTES: String(1024 * MB) } };
    expect((await checkTemplate(t, dir)).failures).toEqual([
      expect.stringMatching(/^WorkerFunction: ENGINE_MAX_INPUT_BYTES 1073741824 leaves no room for outputs in its 512 MB/),
      expect.stringMatching(/^WorkerFunction: ENGINE_MAX_INPUT_BYTES 1073741824 and TASK_MAX_OUTPUT_BYTES 1073741824 together pass three quarters of its 512 MB/),
    ]);
    t.Resources.WorkerFunction!.Properties.EphemeralStorage = { Size: 4096 };
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a processing function with no bound on what its tasks write, or with inputs and outputs that overfill its /tmp together', async () => {
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.EphemeralStorage = { Size: 4096 };
    t.Resources.WorkerFunction!.Properties.Environment = { Variables: { ENGINE_MAX_INPUT_BYTES: String(1024 * MB) } };
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: processes files without TASK_MAX_OUTPUT_BYTES/)]);
    t.Resources.WorkerFunction!.Properties.Environment.Variables.TASK_MAX_OUTPUT_BYTES = String(2100 * MB);
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: .* together pass three quarters of its 4096 MB of \/tmp/)]);
    // As packaging derives them: a quarter each.
    t.Resources.WorkerFunction!.Properties.Environment.Variables.TASK_MAX_OUTPUT_BYTES = String(1024 * MB);
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails an engine function whose environment names the stack’s resources or secrets', async () => {
    const t = goodTemplate();
    t.Resources.ApiFunction!.Properties.Environment = { Variables: { ENGINE_REAP: 'true', ENGINE_FAMILY: 'media', STATE_TABLE: 'svc-state', URL_SIGNING_SECRET: 'x'.repeat(32) } };
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^ApiFunction: an engine function whose environment names STATE_TABLE, URL_SIGNING_SECRET/)]);
    t.Resources.ApiFunction!.Properties.Environment = { Variables: { ENGINE_REAP: 'true', ENGINE_FAMILY: 'media' } };
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a process function whose engine function is missing or bounds inputs differently', async () => {
    const t = goodTemplate();
    const isolated = (name: string, bytes: string) => ({
      Variables: { ENGINE_ISOLATION: 'function', ENGINE_FUNCTION_NAME: name, ENGINE_MAX_INPUT_BYTES: bytes, TASK_MAX_OUTPUT_BYTES: String(MB) },
    });
    t.Resources.WorkerFunction!.Properties.Environment = isolated('svc-engine', String(MB));
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: ENGINE_ISOLATION=function, but its ENGINE_FUNCTION_NAME svc-engine is no function/)]);
    t.Resources.ApiFunction!.Properties.FunctionName = 'svc-engine';
    t.Resources.ApiFunction!.Properties.Environment = { Variables: { ENGINE_REAP: 'true', ENGINE_MAX_INPUT_BYTES: String(2 * MB), TASK_MAX_OUTPUT_BYTES: String(MB) } };
    t.Resources.WorkerFunction!.Properties.Environment = isolated('svc-engine', String(MB));
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: ENGINE_MAX_INPUT_BYTES differs from its engine function's/)]);
    t.Resources.WorkerFunction!.Properties.Environment = isolated('svc-engine', String(2 * MB));
    t.Resources.WorkerFunction!.Properties.Environment.Variables.TASK_MAX_OUTPUT_BYTES = String(3 * MB);
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: TASK_MAX_OUTPUT_BYTES differs from its engine function's/)]);
    t.Resources.WorkerFunction!.Properties.Environment = isolated('svc-engine', String(2 * MB));
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a function that holds requests (its bundle calls waitFor) without its own concurrency, or with a waits budget not below it', async () => {
    const t = goodTemplate();
    const wait = t.Resources.WaitFunction!.Properties;
    delete wait.ReservedConcurrentExecutions;
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WaitFunction: holds requests until a job ends \(its bundle calls waitFor\) without ReservedConcurrentExecutions/)]);
    wait.ReservedConcurrentExecutions = 40;
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WaitFunction: WAIT_BUDGET 40 is not below its ReservedConcurrentExecutions 40/)]);
    delete wait.Environment;
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WaitFunction: holds requests until a job ends .* without WAIT_BUDGET/)]);
  });

  it("fails reserved concurrency that leaves the account's default 1,000 fewer than 100 unreserved executions", async () => {
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.ReservedConcurrentExecutions = 851;
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^ReservedConcurrentExecutions: 901 reserved in all/)]);
    t.Resources.WorkerFunction!.Properties.ReservedConcurrentExecutions = 850;
    expect((await checkTemplate(t, dir)).failures).toEqual([]);
  });

  it('fails a function version (versionFunctions stays false: code storage must not grow with every deploy)', async () => {
    const t = goodTemplate();
    t.Resources.WorkerVersion = { Type: 'AWS::Lambda::Version', Properties: { FunctionName: { Ref: 'WorkerFunction' } } };
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerVersion: a function version/)]);
  });

  it('fails when no function holds requests: the waits budget would bound nothing (waitFor renamed?)', async () => {
    const t = goodTemplate();
    t.Resources.WaitFunction!.Properties.Code.S3Key = 'deploy/upload.zip';
    t.Resources.WaitFunction!.Properties.Handler = 'functions/upload.handler';
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^no function's bundle calls waitFor/)]);
  });

  it('fails a zip that packs sharp binaries for another platform than Lambda', async () => {
    await writeZip(path.join(dir, 'mac.zip'), [
      { name: 'functions/worker.cjs', data: 'exports.handler = async () => {};' },
      { name: 'node_modules/@img/sharp-darwin-arm64/lib/sharp-darwin-arm64.node', data: 'x' },
    ]);
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.Code.S3Key = 'deploy/mac.zip';
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: packs sharp's darwin-arm64 binaries; Lambda \(x64\) needs linux-x64/)]);
  });

  it('fails a zip holding files its function never loads: type declarations or maps of its packages, or engines its engine function runs', async () => {
    await writeZip(path.join(dir, 'unpruned.zip'), [
      { name: 'functions/worker.cjs', data: 'exports.handler = async () => {};' },
      { name: 'functions/worker.cjs.map', data: '{}' },
      { name: 'node_modules/sharp/lib/index.d.ts', data: 'export {};' },
      { name: 'node_modules/sharp/dist/index.cjs', data: 'module.exports = {};' },
    ]);
    const t = goodTemplate();
    t.Resources.WorkerFunction!.Properties.Code.S3Key = 'deploy/unpruned.zip';
    expect((await checkTemplate(t, dir)).failures).toEqual([expect.stringMatching(/^WorkerFunction: holds 1 file Node never loads \(node_modules\/sharp\/lib\/index\.d\.ts/)]);
    // A process function that invokes its engine function (ENGINE_ISOLATION=function) carries no engine at all.
    t.Resources.WorkerFunction!.Properties.Environment = { Variables: { ENGINE_ISOLATION: 'function' } };
    expect((await checkTemplate(t, dir)).failures).toEqual([
      expect.stringMatching(/^WorkerFunction: holds 1 file Node never loads/),
      expect.stringMatching(/^WorkerFunction: runs its engines in its engine function \(ENGINE_ISOLATION=function\) but packs 2 files of node_modules\/ \(node_modules\/sharp\/lib\/index\.d\.ts/),
    ]);
  });
});

describe('the zip reader', () => {
  it('reads sizes and modes from the central directory and extracts files, executables and links as Lambda would', async () => {
    const file = path.join(dir, 'modes.zip');
    await writeZip(file, [
      { name: 'bin/tool', data: '#!/bin/sh\necho hi\n', mode: 0o755 },
      { name: 'lib/data.txt', data: 'x'.repeat(10_000), mode: 0o644 },
      { name: 'lib/link', symlink: 'data.txt' },
    ]);
    const entries = readZipEntries(await readFile(file));
    expect(entries.map((e) => [e.name, e.size])).toEqual([
      ['bin/tool', 18],
      ['lib/data.txt', 10_000],
      ['lib/link', 8],
    ]);
    const out = path.join(dir, 'modes');
    expect(await extractZip(file, out)).toEqual({ files: 2, bytes: 10_018 });
    expect((await stat(path.join(out, 'bin/tool'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(out, 'lib/data.txt'))).mode & 0o777).toBe(0o644);
    expect(await readlink(path.join(out, 'lib/link'))).toBe('data.txt');
    expect(await readFile(path.join(out, 'lib/link'), 'utf8')).toBe('x'.repeat(10_000));
  });

  it('refuses a file that is not a zip', () => {
    expect(() => readZipEntries(Buffer.from('not a zip at all, just some text that is long enough'))).toThrow(/not a zip/);
  });
});
