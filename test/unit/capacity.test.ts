/**
 * The capacity model (scripts/capacity/) on a small packaged stack of its own (test/fixtures/capacity/:
 * a root template with a nested one holding the queue consumers, a calls-per-job file and a page with
 * the generated block): the page agrees with the model, and stops agreeing when the template changes a
 * cap or a memory size; the figures follow the template and the calls file they come from.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALLS, copiedPackage, editTemplate, NESTED, PAGE, SERVICE } from '../support/capacity-fixture.js';
import * as records from '../../lib/file-api/records/model.js';
import { parseCallsPerJob, readCallsPerJob } from '../../scripts/capacity/calls-per-job.js';
import { blockDifference, modelReport, withBlock } from '../../scripts/capacity/docs.js';
import { capacity, limitsInOrder } from '../../scripts/capacity/limits.js';
import { averageJob, parseMix } from '../../scripts/capacity/load.js';
import type { ModelInput } from '../../scripts/capacity/model.js';
import { settingNames } from '../../scripts/capacity/settings.js';
import { stackFacts } from '../../scripts/capacity/stack.js';
import { mergedTemplate, readPackagedStack, ROOT_TEMPLATE } from '../../scripts/ci/stack-templates.js';

let dir: string;
beforeEach(async () => {
  dir = await copiedPackage();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const edit = (file: string, change: (template: any) => void) => editTemplate(dir, file, change);

/** The fixture page with its block generated from the copied package as it is now (as `--write-docs` makes it). */
const pageOfThisTemplate = async () => withBlock(await readFile(PAGE, 'utf8'), await modelReport({ dir, calls: CALLS, serverlessYml: SERVICE }));

async function modelInput(mix?: string, tenants = 1): Promise<ModelInput> {
  const calls = await readCallsPerJob(CALLS);
  const stack = stackFacts(mergedTemplate(await readPackagedStack(dir)));
  return { stack, job: averageJob(calls, parseMix(mix, calls), stack), tenants, settings: settingNames(await readFile(SERVICE, 'utf8')) };
}

describe('the generated block', () => {
  it('is what the model gives for the template and calls file it was made from', async () => {
    const page = await readFile(PAGE, 'utf8');
    expect(blockDifference(page, await modelReport({ dir, calls: CALLS, serverlessYml: SERVICE }))).toBeUndefined();
  });

  it('differs once a queue consumer’s cap changes in the nested stack', async () => {
    const page = await pageOfThisTemplate();
    await edit(NESTED, (t) => (t.Resources.ProcessImageEventSourceMappingSQSProcessQueue.Properties.ScalingConfig.MaximumConcurrency = 4));
    expect(blockDifference(page, await modelReport({ dir, calls: CALLS, serverlessYml: SERVICE }))).toMatch(/MaximumConcurrency of ProcessQueue/);
  });

  it('differs once a function’s memory size changes', async () => {
    const page = await pageOfThisTemplate();
    await edit(ROOT_TEMPLATE, (t) => (t.Resources.EngineImageLambdaFunction.Properties.MemorySize = 3008));
    expect(blockDifference(page, await modelReport({ dir, calls: CALLS, serverlessYml: SERVICE }))).toMatch(/Cost/);
  });
});

describe('the model', () => {
  it('gives each function rate × invocations per job × seconds, and the cap of its queue from the nested stack', async () => {
    const calls = parseCallsPerJob(await readFile(CALLS, 'utf8'));
    const plain = calls.jobs.plain!;
    const at = capacity(await modelInput('plain'), 7);
    for (const name of Object.keys(plain.invocations)) {
      const load = at.functions.find((f) => f.name === name)!;
      expect(load.demand).toBeCloseTo((7 * plain.invocations[name]! * plain.durationMs[name]!) / 1000, 9);
    }
    const nested = JSON.parse(await readFile(path.join(dir, NESTED), 'utf8'));
    const cap = nested.Resources.ImportStepEventSourceMappingSQSImportQueue.Properties.ScalingConfig.MaximumConcurrency;
    expect(at.functions.find((f) => f.name === 'importStep')!.cap?.value).toBe(cap);
  });

  it('meets a queue consumer’s cap at a rate that moves with the cap', async () => {
    const rateOf = async () => limitsInOrder(await modelInput('thumbnail', Infinity)).find((o) => o.limit.what.includes('ProcessQueue'))!.jobsPerSecond;
    const before = await rateOf();
    await edit(NESTED, (t) => (t.Resources.ProcessImageEventSourceMappingSQSProcessQueue.Properties.ScalingConfig.MaximumConcurrency = 2));
    expect((await rateOf()) / before).toBeCloseTo(2 / 8, 3);
  });

  it('holds every wait for its whole time once a consumer is past its cap, and no more than the wait budget', async () => {
    const input = await modelInput('thumbnail', Infinity);
    const first = limitsInOrder(input).find((o) => o.limit.what.includes('ProcessQueue'))!.jobsPerSecond;
    const below = capacity(input, first * 0.9);
    const above = capacity(input, first * 1.1);
    const wait = (at: typeof above) => at.functions.find((f) => f.name === 'jobsWait')!;
    expect(below.backlog).toBe(false);
    expect(above.backlog).toBe(true);
    expect(wait(above).seconds).toBe(Number(input.stack.functions.jobsWait!.env.SYNC_MAX_WAIT_SECONDS));
    expect(wait(above).running).toBe(Number(input.stack.functions.jobsWait!.env.WAIT_BUDGET));
    expect(wait(above).demand).toBeGreaterThan(wait(above).running);
  });

  it('writes an index whenever an item that carries its key is written, spread over the code’s shards', async () => {
    const calls = await readCallsPerJob(CALLS);
    const task = calls.jobs.plain!.state.byKey.task!.writes;
    const job = calls.jobs.plain!.state.byKey.job!.writes;
    const at = capacity(await modelInput('plain'), 10);
    expect(at.state.indexWritesPerSecond).toBeCloseTo(10 * (2 * task + job), 9);
    expect(at.keys.find((k) => k.key === 'active#<hex>')!.writesPerSecond).toBeCloseTo((10 * task) / records.ACTIVE_SHARDS.length, 9);
    // The user's task index is spread over the shards the code declares, if it declares any.
    const userTaskShards = (records as Record<string, unknown>).USER_TASK_SHARDS ?? 1;
    expect(at.keys.find((k) => k.key === 'tasks#<user>')!.writesPerSecond).toBeCloseTo((10 * task) / Number(userTaskShards), 9);
  });

  it('takes the rate limit from the function’s environment', async () => {
    await edit(ROOT_TEMPLATE, (t) => (t.Resources.JobsCreateLambdaFunction.Properties.Environment.Variables.RATE_LIMIT = '1200'));
    const first = limitsInOrder(await modelInput())[0]!;
    expect(first.limit.what).toMatch(/rate limit/);
    expect(first.jobsPerSecond).toBeCloseTo(1200 / 60, 3);
  });

  it('names the stage parameter that sets a limit, where serverless.yml takes it from one', async () => {
    const limits = capacity(await modelInput('thumbnail'), 1).limits;
    expect(limits.find((l) => l.what.includes('ProcessQueue'))!.setting).toBe('stage parameter imageConcurrency');
    expect(limits.find((l) => l.what.includes('ImportQueue'))!.setting).toMatch(/^functions\.importStep\.events sqs maximumConcurrency/);
    expect(limits.find((l) => l.what.includes('WAIT_BUDGET'))!.setting).toBe('stage parameter waitBudget');
    expect(limits.find((l) => l.what.includes('rate limit'))!.setting).toMatch(/stage parameter rateLimit/);
  });

  it('takes a function named by its handler file for the function of that handler', async () => {
    const calls = await readCallsPerJob(CALLS);
    const thumbnail = calls.jobs.thumbnail!;
    const rename = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).map(([k, v]) => [k === 'processImage' ? 'processImageStep' : k, v]));
    const renamed = { ...calls, jobs: { thumbnail: { ...thumbnail, invocations: rename(thumbnail.invocations), durationMs: rename(thumbnail.durationMs) } } };
    const stack = stackFacts(mergedTemplate(await readPackagedStack(dir)));
    const job = averageJob(renamed, { thumbnail: 1 }, stack);
    expect(job.invocations.processImage).toBe(thumbnail.invocations.processImage);
    expect(job.durationMs.processImage).toBe(thumbnail.durationMs.processImage);
  });

  it('fails, naming it, on a function the calls file has and the template does not', async () => {
    await edit(ROOT_TEMPLATE, (t) => delete t.Resources.EngineImageLambdaFunction);
    await expect(modelInput()).rejects.toThrow(/engineImage/);
  });

  it('fails on an index the model writes and the table does not have', async () => {
    await edit(ROOT_TEMPLATE, (t) => t.Resources.StateTable.Properties.GlobalSecondaryIndexes.pop());
    await expect(modelInput().then((input) => capacity(input, 1))).rejects.toThrow(/gsi2/);
  });

  it('shows a key family of the calls file that it does not place, instead of dropping it', async () => {
    const calls = JSON.parse(await readFile(CALLS, 'utf8'));
    calls.jobs.plain.state.byKey.mystery = { reads: 0, writes: 3 };
    const file = path.join(dir, 'calls.json');
    await writeFile(file, JSON.stringify(calls));
    expect(await modelReport({ dir, calls: file })).toMatch(/does not place \(not counted above\): mystery\./);
    expect(await modelReport({ dir, calls: CALLS })).not.toMatch(/does not place/);
  });

  it('refuses a calls file whose invocations have no duration', () => {
    const bad = { source: 'test', jobs: { a: { tasks: 'x', invocations: { jobsCreate: 1 }, durationMs: {}, state: { reads: 0, writes: 0, byKey: {} }, queue: { sends: 0 }, storage: { puts: 0, gets: 0, other: 0 } } } };
    expect(() => parseCallsPerJob(JSON.stringify(bad))).toThrow(/durationMs has no figure for jobsCreate/);
  });
});
