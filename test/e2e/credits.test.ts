/**
 * Credits through the whole platform (serverless-offline, queues, consumers, dynalite) and the official
 * `cloudconvert` SDK: 50 one-credit tasks fired at once against a balance of 20, a job refused at 0, the
 * usage endpoint counting them. The balance is set with the operator's function (lib/file-api/account/credits.ts)
 * on the platform's own state table, as `npm run users -- credits` does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Credits, UNLIMITED_CREDITS_SHOWN } from '#lib/file-api/account/credits.js';
import { dayOf, type UsageReport } from '#lib/file-api/account/usage.js';
import { Users } from '#lib/access/auth/users.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'credits-e2e-'));
let platform: Emulator;
let cc: ReturnType<typeof cloudConvertClient>;
let credits: Credits;
let png: string;

beforeAll(async () => {
  platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
  cc = cloudConvertClient(platform.apiKey, platform.baseUrl);
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  credits = new Credits({ state, users: new Users(state, { username: 'local', email: 'local@example.com', credits: 'unlimited' }) });
  png = (await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } }).png().toBuffer()).toString('base64');
}, 300_000);
afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Job = Awaited<ReturnType<typeof cc.jobs.get>>;

/** A job importing a small PNG and converting it to JPG: one credit. */
const convertJob = (tag: string) =>
  cc.jobs.create({
    tag,
    tasks: {
      'import-it': { operation: 'import/base64', file: png, filename: 'dot.png' },
      'convert-it': { operation: 'convert', input: 'import-it', output_format: 'jpg' },
    },
  });

/** The SDK throws `Error(statusText, { cause: response })` on a non-2xx answer. */
async function refusal(err: unknown): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const res = (err as { cause?: Response }).cause;
  if (!(res instanceof Response)) throw err;
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

/** Waits (the SDK's wait, again while the job runs past the wait cap) until the job has ended. */
async function ended(id: string): Promise<Job> {
  for (;;) {
    const job = await cc.jobs.wait(id);
    if (job.status === 'finished' || job.status === 'error') return job;
  }
}

const usage = async (query = '') => {
  const res = await fetch(`${platform.baseUrl}/v2/users/me/usage${query}`, { headers: { authorization: `Bearer ${platform.apiKey}` } });
  return { status: res.status, body: (await res.json()) as { data: UsageReport; code?: string; errors?: Record<string, string[]> } };
};

describe('credits through the cloudconvert SDK', () => {
  it('the built-in account starts unlimited', async () => {
    const me = await cc.users.me();
    expect(me.credits).toBe(UNLIMITED_CREDITS_SHOWN);
    expect((me as unknown as { credits_unlimited: boolean }).credits_unlimited).toBe(true);
  });

  it('50 one-credit tasks at once against a balance of 20: exactly 20 finish, the rest end CREDITS_EXCEEDED or are refused with 402, the balance ends at 0', async () => {
    await credits.setCredits(1, 20);
    expect((await cc.users.me()).credits).toBe(20);

    const attempts = await Promise.allSettled(Array.from({ length: 50 }, () => convertJob('fifty')));
    const refused = await Promise.all(attempts.filter((a) => a.status === 'rejected').map((a) => refusal(a.reason)));
    for (const r of refused) expect(r).toMatchObject({ status: 402, body: { code: 'CREDITS_EXCEEDED' } });
    const created = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    expect(created.length + refused.length).toBe(50);

    const jobs = await Promise.all(created.map((job) => ended(job.id)));
    const converts = jobs.map((job) => job.tasks.find((t) => t.name === 'convert-it')!);
    const finished = converts.filter((t) => t.status === 'finished');
    expect(finished).toHaveLength(20);
    for (const t of finished) expect(t.credits).toBe(1);
    for (const t of converts.filter((c) => c.status !== 'finished')) {
      expect(t).toMatchObject({ status: 'error', code: 'CREDITS_EXCEEDED', credits: 0 });
      expect(t.message).toMatch(/^Not enough credits: this task needs 1 and the account has 0\.$/);
    }
    expect((await cc.users.me()).credits).toBe(0);

    // The usage counts them on today's line (UTC).
    const today = dayOf(new Date());
    const { status, body } = await usage(`?from=${today}&to=${today}`);
    expect(status).toBe(200);
    expect(body.data.days).toHaveLength(1);
    expect(body.data.totals.operations.convert).toEqual({ credits: 20, tasks: created.length, failed: created.length - 20 });
    expect(body.data.totals.operations['import/base64']).toEqual({ credits: 0, tasks: created.length, failed: 0 });
    expect(body.data.totals.credits).toBe(20);
  }, 300_000);

  it('a job created at 0 is a 402 and nothing is stored', async () => {
    expect((await cc.users.me()).credits).toBe(0);
    const err = await convertJob('at-zero').catch((e: unknown) => e);
    expect(await refusal(err)).toEqual({
      status: 402,
      body: { code: 'CREDITS_EXCEEDED', message: 'Your account has run out of credits: 0 left, and the cheapest task of this request costs 1.' },
    });
    expect(await cc.jobs.all({ 'filter[tag]': 'at-zero' })).toEqual([]);
    // A free task still goes; one that costs credits does not.
    const imported = await cc.tasks.create('import/base64', { file: png, filename: 'dot.png' });
    const task = await cc.tasks.create('convert', { input: [imported.id], output_format: 'jpg' }).catch((e: unknown) => e);
    expect((await refusal(task)).status).toBe(402);
    // Every convert task listed belongs to the jobs above: no standalone one was stored.
    expect((await cc.tasks.all({ 'filter[operation]': 'convert', per_page: 100 })).filter((t) => t.job_id === null)).toEqual([]);
  });

  it('answers the usage of the last 30 days by default, and refuses a bad range naming the field', async () => {
    const { status, body } = await usage();
    expect(status).toBe(200);
    expect(body.data.days).toHaveLength(30);
    expect(body.data.to).toBe(dayOf(new Date()));
    expect(body.data.days.at(-1)).toMatchObject({ date: dayOf(new Date()), credits: 20 });
    const bad = await usage('?from=2026-02-30');
    expect(bad).toMatchObject({ status: 422, body: { code: 'INVALID_DATA', errors: { from: ['must be a date written YYYY-MM-DD.'] } } });
    const long = await usage('?from=2024-01-01&to=2025-12-31');
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.errors!)).toEqual(['from']);
  });
});
