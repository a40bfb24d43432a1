/**
 * Class 8 of issue 10 (three of its items), in-process on the real route chains against dynalite,
 * s3rver and the local SQS server:
 * - JSON request bodies nested deeper than 32 levels are refused with 400 in the API's own format
 *   (never a 500); GraphQL answers a deeply nested variables object with a GraphQL error;
 * - a request with a missing, unknown or revoked API key costs no write: the key is verified before
 *   the rate-limit counter is touched;
 * - a job's `webhook_url` is checked against the address policy when the job is created (422
 *   INVALID_DATA naming `webhook_url`), not only when the webhook is delivered.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type * as Dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { startFilesBackend } from '../support/s3rver.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { createCreatureYoga } from '#lib/graphql/creatures/yoga.js';
import { createLogger } from '#lib/kernel/log.js';
import { startSqsServer, type SqsServer } from '../../local/sqs/server.js';
import type * as JobsCreate from '#functions/jobs/create.js';
import type * as TasksCreate from '#functions/tasks/create.js';
import type * as SyncCreate from '#functions/jobs/sync-create.js';
import type * as JobsList from '#functions/jobs/list.js';
import type * as WebhooksCreate from '#functions/webhooks/create.js';
import type * as UsersMe from '#functions/account/users-me.js';
import type * as Migration from '#functions/migration/api.js';

/**
 * Names under `.test` resolve as a DNS server could answer them (a public name of 127.0.0.1, a name of
 * a private address, one with a public and a loopback address); every other name resolves as usual.
 */
const TEST_NAMES: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
  'hooks.loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'hooks.loopback6.test': [{ address: '::1', family: 6 }],
  'hooks.private.test': [{ address: '10.1.2.3', family: 4 }],
  'hooks.metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'hooks.mixed.test': [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }],
  'hooks.public.test': [{ address: '93.184.215.14', family: 4 }],
};
vi.mock('node:dns', async (importOriginal) => {
  const actual = await importOriginal<typeof Dns>();
  const lookup = ((host: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (err: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;
    const opts = (typeof options === 'object' && options) || {};
    if (host.endsWith('.test')) {
      const found = TEST_NAMES[host];
      if (!found) return process.nextTick(cb, Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
      return (opts as { all?: boolean }).all ? process.nextTick(cb, null, found) : process.nextTick(cb, null, found[0]!.address, found[0]!.family);
    }
    return (actual.lookup as (...args: unknown[]) => void)(host, options, callback);
  }) as typeof Dns.lookup;
  return { ...actual, lookup, default: { ...actual, lookup } };
});

let state: Awaited<ReturnType<typeof startStateBackend>>;
let files: Awaited<ReturnType<typeof startFilesBackend>>;
let sqsServer: SqsServer;
let sqs: SQSClient;
let receiver: Receiver;
let key: string;
let revokedKey: string;
const h: {
  jobsCreate?: typeof JobsCreate.handler;
  tasksCreate?: typeof TasksCreate.handler;
  syncCreate?: typeof SyncCreate.handler;
  jobsList?: typeof JobsList.handler;
  webhooksCreate?: typeof WebhooksCreate.handler;
  usersMe?: typeof UsersMe.handler;
  migration?: typeof Migration.handler;
} = {};
/** A host:port the address policy lets through although it is loopback (the test switch). */
let allowedHost: string;

beforeAll(async () => {
  [state, files, sqsServer, receiver] = await Promise.all([startStateBackend(), startFilesBackend(), startSqsServer({ port: 0 }), startReceiver()]);
  sqs = new SQSClient({ endpoint: sqsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  for (const q of ['import', 'process', 'export', 'operations', 'webhooks']) await sqs.send(new CreateQueueCommand({ QueueName: q }));
  allowedHost = `127.0.0.1:${receiver.port}`;
  useLocalEnv({
    dynamodb: state.endpoint,
    s3: files.endpoint,
    sqs: sqsServer.url,
    table: state.table,
    bucket: files.bucket,
    GOOGLE_AUTH_MODE: 'open',
    ALLOW_LOOPBACK_FETCH: 'false',
    FETCH_ALLOW_HOSTS: allowedHost,
    RATE_LIMIT: '1000',
  });
  h.jobsCreate = (await import('#functions/jobs/create.js')).handler;
  h.tasksCreate = (await import('#functions/tasks/create.js')).handler;
  h.syncCreate = (await import('#functions/jobs/sync-create.js')).handler;
  h.jobsList = (await import('#functions/jobs/list.js')).handler;
  h.webhooksCreate = (await import('#functions/webhooks/create.js')).handler;
  h.usersMe = (await import('#functions/account/users-me.js')).handler;
  h.migration = (await import('#functions/migration/api.js')).handler;
  const keys = new ApiKeys(state.store);
  key = (await keys.create({ scopes: ['task.read', 'task.write', 'user.read', 'webhook.write'] })).key;
  const revoked = await keys.create({ scopes: ['task.read', 'task.write'] });
  await keys.revoke(revoked.record.keyId);
  revokedKey = revoked.key;
}, 60_000);

afterAll(async () => {
  sqs?.destroy();
  await Promise.all([state?.close(), files?.close(), sqsServer?.close(), receiver?.close()]);
});

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
const post = (handler: keyof typeof h, path: string, body: string, headers: Record<string, string> = bearer(key)) =>
  call(h[handler]!, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    pathParameters: path.startsWith('/v2/import/') ? { operation: path.slice('/v2/'.length) } : undefined,
  });

/** JSON text nested `depth` levels deep (the outermost object or array is level 1). */
function nested(depth: number, kind: 'array' | 'object' | 'mixed', leaf = '1'): string {
  let text = leaf;
  for (let level = depth; level >= 1; level--) {
    const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    text = asArray ? `[${text}]` : `{"k":${text}}`;
  }
  return text;
}
/** A job body whose `tag` holds a value nested so that the whole body is `depth` levels deep. */
const deepJob = (depth: number, kind: 'array' | 'object' | 'mixed') =>
  `{"tasks":{"up":{"operation":"import/upload"}},"tag":${nested(depth - 1, kind)}}`;

async function itemsWithPrefix(prefix: string): Promise<number> {
  let count = 0;
  let start: Record<string, any> | undefined;
  do {
    const page = await state.client.send(new ScanCommand({ TableName: state.table, ExclusiveStartKey: start }));
    count += (page.Items ?? []).filter((i) => i.pk?.S?.startsWith(prefix)).length;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

// ---------------------------------------------------------------------------------------------------

describe('JSON nesting depth of request bodies', () => {
  it.each([
    ['an array 5000 deep', '`[`×5000', nested(5000, 'array')],
    ['an object 5000 deep', '{"k":…}×5000', nested(5000, 'object')],
    ['arrays and objects mixed, 5000 deep', 'mixed', nested(5000, 'mixed')],
    ['a job body 33 deep (just over)', 'tag', deepJob(33, 'object')],
    ['a job body 33 deep in arrays (just over)', 'tag', deepJob(33, 'array')],
    ['a job body 100 000 deep', 'tag', deepJob(100_000, 'mixed')],
  ])('refuses %s with 400 in the file API format', async (_label, _shape, body) => {
    const routes = [['jobsCreate', '/v2/jobs'], ['syncCreate', '/sync/v2/jobs'], ['webhooksCreate', '/v2/webhooks'], ['tasksCreate', '/v2/import/raw']] as const;
    for (const [handler, path] of routes) {
      if (body.length > 200_000 && handler !== 'jobsCreate') continue;
      const started = performance.now();
      const res = await post(handler, path, body);
      const ms = performance.now() - started;
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.json).toEqual({ code: 'INVALID_DATA', message: expect.stringContaining('32') });
      expect(res.json.message).toMatch(/nest/i);
      // Refused before any deep walk: milliseconds on an idle machine; the bound only catches a hang or a
      // quadratic parse, and is generous so that a loaded CI machine does not fail it.
      expect(ms).toBeLessThan(5000);
    }
  });

  it('refuses the task that used to end in a 500: import/raw with a 5000-deep extra field', async () => {
    for (const extra of [nested(5000, 'mixed'), nested(5000, 'array'), nested(33, 'object')]) {
      const res = await post('tasksCreate', '/v2/import/raw', `{"file":"eA==","filename":"a.txt","x":${extra}}`);
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expect(res.json.code).toBe('INVALID_DATA');
      expect(res.json.message).toMatch(/nest.*32/i);
    }
  });

  it('accepts bodies nested exactly 32 deep, and brackets inside strings do not count', async () => {
    for (const kind of ['array', 'object', 'mixed'] as const) {
      const res = await post('jobsCreate', '/v2/jobs', deepJob(32, kind));
      // Parsed, then refused by validation: `tag` must be a string.
      expect(res.status, res.text).toBe(422);
      expect(res.json.code).toBe('INVALID_DATA');
      expect(Object.keys(res.json.errors)).toEqual(['tag']);
    }
    const tag = '['.repeat(5000) + '{'.repeat(5000) + '\\"'.repeat(10);
    const res = await post('jobsCreate', '/v2/jobs', `{"tasks":{"up":{"operation":"import/upload"}},"tag":"${tag.slice(0, 900)}"}`);
    expect(res.status, res.text.slice(0, 300)).toBe(201);
  });

  it("refuses deep bodies on the Google routes with 400 INVALID_ARGUMENT in Google's format", async () => {
    const path = '/v1/projects/p/locations/us-central1/collectors';
    for (const body of [nested(5000, 'object'), `{"displayName":"x","labels":${nested(40, 'mixed')}}`, `{"displayName":${nested(32, 'array')}}`]) {
      const res = await call(h.migration!, { method: 'POST', path, query: 'collectorId=deep', headers: { 'content-type': 'application/json' }, body });
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/nest.*32/i) });
    }
    // 32 deep is parsed (and then refused for what it holds, not for its depth).
    const ok = await call(h.migration!, {
      method: 'POST',
      path,
      query: 'collectorId=deep',
      headers: { 'content-type': 'application/json' },
      body: `{"displayName":${nested(31, 'array', '"x"')}}`,
    });
    expect(ok.status).toBe(400);
    expect(ok.json.error.message).not.toMatch(/nest/i);
  });

  it("refuses a Google list's pageToken holding deeply nested JSON with 400 INVALID_ARGUMENT", async () => {
    for (const inner of [nested(5000, 'array'), `{"v":1,"h":"x","k":${nested(5000, 'mixed')}}`]) {
      const pageToken = Buffer.from(inner).toString('base64url');
      const res = await call(h.migration!, { method: 'GET', path: '/v1/projects/p/locations/us-central1/collectors', query: `pageToken=${pageToken}` });
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    }
  });

  it('answers a deeply nested GraphQL variables object with a GraphQL error, not a 500', async () => {
    const yoga = createCreatureYoga({ store: state.store, logger: createLogger({}, { level: 'silent' }) });
    for (const variables of [nested(5000, 'object'), nested(3000, 'mixed'), nested(33, 'array')]) {
      const body = `{"query":"query($name: String) { creature(name: $name) { name } }","variables":{"name":${variables}}}`;
      const res = await yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status, variables.slice(0, 20)).toBeLessThan(500);
      const json = (await res.json()) as { errors?: Array<{ message: string }> };
      expect(json.errors?.length).toBeGreaterThan(0);
      expect(json.errors![0]!.message).not.toMatch(/internal|unexpected/i);
    }
  });
});

describe('rate limiting counts only verified keys', () => {
  it('answers garbage, unknown and revoked keys with 401 and writes nothing', async () => {
    const before = await itemsWithPrefix('ratelimit#');
    const garbage = [
      ...Array.from({ length: 60 }, (_, i) => `key_${i.toString(36).padStart(20, 'x')}`),
      ...Array.from({ length: 60 }, () => crypto.randomUUID()),
      ...Array.from({ length: 60 }, (_, i) => 'A'.repeat(16 + i)),
      // Shaped like OAuth access, refresh and code tokens.
      ...Array.from({ length: 20 }, () => `oat_${crypto.randomUUID().replace(/-/g, '')}`),
      ...Array.from({ length: 10 }, () => `ort_${crypto.randomUUID().replace(/-/g, '')}`),
      ...Array.from({ length: 10 }, () => `oac_${crypto.randomUUID().replace(/-/g, '')}`),
      revokedKey,
    ];
    const body = '{"tasks":{"up":{"operation":"import/upload"}}}';
    const responses = await Promise.all(
      garbage.flatMap((k) => [
        post('jobsCreate', '/v2/jobs', body, bearer(k)),
        call(h.jobsList!, { path: '/v2/jobs', headers: bearer(k) }),
        call(h.usersMe!, { path: '/v2/users/me', headers: bearer(k) }),
      ]),
    );
    for (const res of responses) {
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ message: 'Unauthenticated.', code: 'UNAUTHENTICATED' });
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect(await itemsWithPrefix('ratelimit#')).toBe(before);

    // A verified key is still counted (so the check above could fail).
    const fresh = (await new ApiKeys(state.store).create({ scopes: ['task.write'] })).key;
    const counted = await post('jobsCreate', '/v2/jobs', body, bearer(fresh));
    expect(counted.status, counted.text).toBe(201);
    expect(counted.headers['x-ratelimit-remaining']).toBe('999');
    expect(await itemsWithPrefix('ratelimit#')).toBe(before + 1);
  });
});

describe("a job's webhook_url is checked when the job is created", () => {
  const job = (webhookUrl: string) => JSON.stringify({ tasks: { up: { operation: 'import/upload' } }, webhook_url: webhookUrl });

  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:8080/hook',
    'http://169.254.169.254/latest/meta-data/',
    'file:///etc/passwd',
    'http://[::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://localhost/hook',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
    'gopher://example.com/',
  ])('refuses %s with 422 INVALID_DATA naming webhook_url, storing no job', async (url) => {
    const before = await itemsWithPrefix('job#');
    for (const [handler, path] of [['jobsCreate', '/v2/jobs'], ['syncCreate', '/sync/v2/jobs']] as const) {
      const res = await post(handler, path, job(url));
      expect(res.status, `${path} ${url}: ${res.text}`).toBe(422);
      expect(res.json.code).toBe('INVALID_DATA');
      expect(Object.keys(res.json.errors)).toEqual(['webhook_url']);
    }
    expect(await itemsWithPrefix('job#')).toBe(before);
    expect(receiver.requests).toHaveLength(0);
  });

  it.each([
    // Literal forms the URL parser turns into a loopback, unspecified or private address.
    'http://0/',
    'http://127.1/',
    'http://localhost./',
    'http://LocalHost/',
    'http://sub.localhost/',
    'http://[::]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:7f00:1]/',
    'http://0x7f000001/',
    'http://%31%32%37.0.0.1/',
    'http://\uff11\uff12\uff17.0.0.1/',
    'https:127.0.0.1/no-slashes',
    'http:\\\\127.0.0.1\\backslashes',
    'http://user:pass@127.0.0.1/credentials',
  ])('refuses the webhook_url %s (another notation of an internal address) with 422', async (url) => {
    for (const [handler, path] of [['jobsCreate', '/v2/jobs'], ['syncCreate', '/sync/v2/jobs']] as const) {
      const res = await post(handler, path, job(url));
      expect(res.status, `${path} ${url}: ${res.text}`).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual(['webhook_url']);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it.each(['hooks.loopback.test', 'hooks.loopback6.test', 'hooks.private.test', 'hooks.metadata.test', 'hooks.mixed.test'])(
    'refuses a webhook URL whose name (%s) resolves to an internal address, for jobs and webhook endpoints, storing nothing',
    async (host) => {
      const before = await itemsWithPrefix('job#');
      for (const [handler, path] of [['jobsCreate', '/v2/jobs'], ['syncCreate', '/sync/v2/jobs']] as const) {
        const res = await post(handler, path, job(`https://${host}/hook`));
        expect(res.status, `${path} ${host}: ${res.text}`).toBe(422);
        expect(res.json.code).toBe('INVALID_DATA');
        expect(Object.keys(res.json.errors)).toEqual(['webhook_url']);
        expect(res.json.errors.webhook_url.join(' ')).toContain(host);
      }
      expect(await itemsWithPrefix('job#')).toBe(before);
      const hook = await post('webhooksCreate', '/v2/webhooks', JSON.stringify({ url: `https://${host}/hook`, events: ['job.finished'] }));
      expect(hook.status, hook.text).toBe(422);
      expect(Object.keys(hook.json.errors)).toEqual(['url']);
    },
  );

  it('accepts a name that resolves to a public address, or that does not resolve yet (the delivery checks again)', async () => {
    for (const host of ['hooks.public.test', 'hooks.unknown.test']) {
      const res = await post('jobsCreate', '/v2/jobs', job(`https://${host}/hook`));
      expect(res.status, `${host}: ${res.text}`).toBe(201);
      const hook = await post('webhooksCreate', '/v2/webhooks', JSON.stringify({ url: `https://${host}/hook`, events: ['job.finished'] }));
      expect(hook.status, hook.text).toBe(201);
    }
  });

  it('accepts a public address, and a loopback one the test switch (FETCH_ALLOW_HOSTS) allows', async () => {
    for (const url of ['https://hooks.example.com/cloudconvert', `http://${allowedHost}/dynamic`]) {
      const res = await post('jobsCreate', '/v2/jobs', job(url));
      expect(res.status, `${url}: ${res.text}`).toBe(201);
    }
  });
});
