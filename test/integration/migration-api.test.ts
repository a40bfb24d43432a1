/**
 * The migration assessment API in-process: the real route chain and the real operations consumer,
 * against dynalite and the local SQS server, with the dispatcher delivering the queue to the
 * consumer as Lambda would. Requests are written as Google's clients send them.
 */
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { startDispatcher, type Dispatcher } from '../../local/dispatcher.js';
import { startSqsServer, type SqsServer } from '../../local/sqs/server.js';
import type * as Api from '#functions/migration/api.js';
import type * as Worker from '#functions/migration/operations-worker.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let sqsServer: SqsServer;
let sqs: SQSClient;
let dispatcher: Dispatcher;
let api: typeof Api.handler;
let worker: typeof Worker.handler;

const P = 'projects/p/locations/us-central1';
const INT = '$alt=json%3Benum-encoding=int';

beforeAll(async () => {
  backend = await startStateBackend();
  sqsServer = await startSqsServer({ port: 0 });
  sqs = new SQSClient({ endpoint: sqsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await sqs.send(new CreateQueueCommand({ QueueName: 'operations', Attributes: { VisibilityTimeout: '2' } }));
  useLocalEnv({
    dynamodb: backend.endpoint,
    sqs: sqsServer.url,
    table: backend.table,
    MIGRATION_DELETE_GRACE_SECONDS: '1',
    GOOGLE_DEFAULT_PAGE_SIZE: '3',
    GOOGLE_MAX_PAGE_SIZE: '5',
    MIGRATION_LOCATIONS: 'us-central1,europe-west1,asia-southeast1',
  });
  api = (await import('#functions/migration/api.js')).handler;
  worker = (await import('#functions/migration/operations-worker.js')).handler;
  dispatcher = startDispatcher({
    sqs,
    waitTimeSeconds: 1,
    log: { info() {}, warn() {}, error() {} },
    invoke: async (_fn: string, event: SQSEvent) => ({ ok: true, payload: await worker(event) }),
    mappings: [{ queueName: 'operations', functionName: 'migrationOperations', batchSize: 10, reportBatchItemFailures: true }],
  });
});

afterAll(async () => {
  await dispatcher?.stop();
  sqs?.destroy();
  await sqsServer?.close();
  await backend?.close();
});

interface Req {
  query?: string;
  body?: unknown;
  headers?: Record<string, string>;
}
const send = (method: string, path: string, r: Req = {}) =>
  call(api, {
    method,
    path: `/v1/${path}`,
    query: r.query,
    headers: { 'content-type': 'application/json', ...r.headers },
    body: r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitDone(name: string, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await send('GET', name);
    expect(res.status).toBe(200);
    if (res.json.done) return res.json;
    if (Date.now() > deadline) throw new Error(`operation ${name} not done in time`);
    await sleep(100);
  }
}

async function createCollector(id: string, body: unknown = {}, query = ''): Promise<any> {
  const res = await send('POST', `${P}/collectors`, { query: `collectorId=${id}${query}`, body });
  expect(res.status, res.text).toBe(200);
  return waitDone(res.json.name);
}

async function act(id: string, verb: string, extra = ''): Promise<any> {
  const res = await send('POST', `${P}/collectors/${id}:${verb}`, { query: extra, body: {} });
  expect(res.status, res.text).toBe(200);
  return waitDone(res.json.name);
}

describe('locations', () => {
  it('gets a served location and lists them page by page', async () => {
    const got = await send('GET', `${P}`, { query: INT });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(got.json).toEqual({
      name: P,
      locationId: 'us-central1',
      displayName: 'Iowa',
      labels: { 'cloud.googleapis.com/region': 'us-central1' },
    });

    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await send('GET', 'projects/p/locations', { query: `pageSize=2${token ? `&pageToken=${token}` : ''}` });
      expect(page.status).toBe(200);
      names.push(...page.json.locations.map((l: { name: string }) => l.name));
      token = page.json.nextPageToken;
    } while (token);
    // In name order.
    expect(names).toEqual(['projects/p/locations/asia-southeast1', 'projects/p/locations/europe-west1', P]);

    const filtered = await send('GET', 'projects/p/locations', { query: 'filter=' + encodeURIComponent('locationId = "europe-*"') });
    expect(filtered.json.locations.map((l: { locationId: string }) => l.locationId)).toEqual(['europe-west1']);
  });

  it('answers 404 for a location it does not serve and 400 for a malformed one', async () => {
    const missing = await send('GET', 'projects/p/locations/mars-north1');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });

    const malformed = await send('GET', 'projects/P!/locations/us-central1');
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.status).toBe('INVALID_ARGUMENT');
    expect(malformed.json.error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'name', description: expect.stringContaining('not a valid project id') }],
    });
  });
});

describe('the collector lifecycle', () => {
  it('creates, registers, resumes, pauses, patches and deletes a collector through operations', async () => {
    const created = await send('POST', `${P}/collectors`, {
      query: `collectorId=c1&requestId=8e6d7a8e-0000-4000-8000-000000000001&${INT}`,
      // As the GAPIC client sends it: output-only state as a number, int64 as a string.
      body: { labels: { env: 'dev' }, displayName: 'dc-1', serviceAccount: 'sa@p.iam.gserviceaccount.com', expectedAssetCount: '1000', state: 4, collectionDays: 7 },
    });
    expect(created.status, created.text).toBe(200);
    const op = created.json;
    expect(op.name).toMatch(/^projects\/p\/locations\/us-central1\/operations\/operation-\d+-[0-9a-f]+$/);
    expect(op.done).toBe(false);
    expect(op.response).toBeUndefined();
    expect(op.metadata).toMatchObject({
      '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.OperationMetadata',
      target: `${P}/collectors/c1`,
      verb: 'create',
      apiVersion: 'v1',
    });
    expect(op.metadata.createTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // Right after the call: initializing, output-only fields filled, the body's state ignored.
    const early = await send('GET', `${P}/collectors/c1`);
    expect(early.json).toMatchObject({ state: 'STATE_INITIALIZING', displayName: 'dc-1', expectedAssetCount: '1000', collectionDays: 7 });
    expect(early.json.bucket).toMatch(/^[0-9a-f-]{36}$/);
    expect(early.json.guestOsScan.coreSource).toMatch(new RegExp(`^${P}/sources/`));
    expect(early.json.vsphereScan.coreSource).toBe(early.json.guestOsScan.coreSource);

    const done = await waitDone(op.name);
    expect(done.metadata.endTime).toMatch(/Z$/);
    expect(done.response).toMatchObject({
      '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.Collector',
      name: `${P}/collectors/c1`,
      state: 'STATE_READY_TO_USE',
      labels: { env: 'dev' },
    });
    expect(done.error).toBeUndefined();
    expect(JSON.stringify(done)).not.toContain('null');

    // With $alt=json;enum-encoding=int, enums are numbers, inside operations too.
    const asInt = await send('GET', `${P}/collectors/c1`, { query: INT });
    expect(asInt.json.state).toBe(2);
    const opInt = await send('GET', op.name, { query: INT });
    expect(opInt.json.response.state).toBe(2);

    const paused = await send('POST', `${P}/collectors/c1:pause`, { body: {} });
    expect(paused.status).toBe(400);
    expect(paused.json.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(paused.json.error.message).toContain('STATE_READY_TO_USE');

    expect((await act('c1', 'register')).response).toMatchObject({ state: 'STATE_REGISTERED', clientVersion: expect.any(String) });
    expect((await act('c1', 'resume')).response.state).toBe('STATE_ACTIVE');
    expect((await act('c1', 'pause')).response.state).toBe('STATE_PAUSED');
    expect((await act('c1', 'resume')).response.state).toBe('STATE_ACTIVE');

    // GAPIC: snake_case mask, an unset map sent as {} (must not clear the labels).
    const patch = await send('PATCH', `${P}/collectors/c1`, {
      query: `updateMask=display_name%2Cdescription&requestId=r-3&${INT}`,
      body: { labels: {}, displayName: 'renamed', description: 'x' },
    });
    expect(patch.status, patch.text).toBe(200);
    const patched = (await waitDone(patch.json.name)).response;
    expect(patched).toMatchObject({ displayName: 'renamed', description: 'x', labels: { env: 'dev' }, state: 'STATE_ACTIVE' });
    expect(Date.parse(patched.updateTime)).toBeGreaterThan(Date.parse(patched.createTime));

    // Discovery: camelCase mask naming labels replaces the map.
    const patch2 = await send('PATCH', `${P}/collectors/c1`, { query: 'updateMask=displayName%2Clabels', body: { displayName: 'x' } });
    const patched2 = (await waitDone(patch2.json.name)).response;
    expect(patched2.displayName).toBe('x');
    expect(patched2.labels).toBeUndefined();
    expect(patched2.description).toBe('x');

    const del = await send('DELETE', `${P}/collectors/c1`, { query: 'requestId=r-del' });
    expect(del.status).toBe(200);
    expect(del.json.done).toBe(false);
    const deleting = await send('GET', `${P}/collectors/c1`);
    expect(deleting.json.state).toBe('STATE_DELETING');
    const again = await send('DELETE', `${P}/collectors/c1`);
    expect(again.status).toBe(400);
    expect(again.json.error.status).toBe('FAILED_PRECONDITION');

    const deleted = await waitDone(del.json.name);
    expect(deleted.response).toMatchObject({ name: `${P}/collectors/c1`, state: 'STATE_DECOMMISSIONED' });
    const gone = await send('GET', `${P}/collectors/c1`);
    expect(gone.status).toBe(404);
    expect(gone.json.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(gone.json.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ResourceInfo', resourceName: `${P}/collectors/c1` });
  });

  it('refuses a duplicate collectorId with 409 ALREADY_EXISTS', async () => {
    await createCollector('dup');
    const res = await send('POST', `${P}/collectors`, { query: 'collectorId=dup', body: {} });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 409, status: 'ALREADY_EXISTS' });
  });

  it('returns the same operation for a repeated requestId and refuses it for another request', async () => {
    const first = await send('POST', `${P}/collectors`, { query: 'collectorId=idem&requestId=req-1', body: { displayName: 'a' } });
    const second = await send('POST', `${P}/collectors`, { query: 'collectorId=idem&requestId=req-1', body: { displayName: 'a' } });
    expect(second.status).toBe(200);
    expect(second.json.name).toBe(first.json.name);
    const other = await send('POST', `${P}/collectors`, { query: 'collectorId=idem&requestId=req-1', body: { displayName: 'b' } });
    expect(other.status).toBe(400);
    expect(other.json.error.details[0].fieldViolations[0].field).toBe('requestId');
    await waitDone(first.json.name);

    // A body:"*" method carries its requestId in the body.
    const r1 = await send('POST', `${P}/collectors/idem:register`, { body: { requestId: 'r-reg' } });
    await waitDone(r1.json.name);
    const r2 = await send('POST', `${P}/collectors/idem:register`, { body: { requestId: 'r-reg' } });
    expect(r2.json.name).toBe(r1.json.name);
    const zero = await send('POST', `${P}/collectors/idem:resume`, { body: { requestId: '00000000-0000-0000-0000-000000000000' } });
    expect(zero.status).toBe(400);
  });

  it('answers client mistakes with Google-format 4xx, never a 500', async () => {
    await createCollector('errs');
    const cases: Array<[string, string, Req, number, string, string?]> = [
      ['GET', `${P}/collectors/nope`, {}, 404, 'NOT_FOUND'],
      ['GET', `${P}/collectors/Bad_Id`, {}, 400, 'INVALID_ARGUMENT', 'name'],
      ['POST', `${P}/collectors`, { body: {} }, 400, 'INVALID_ARGUMENT', 'collectorId'],
      ['POST', `${P}/collectors`, { query: 'collectorId=9starts-with-digit', body: {} }, 400, 'INVALID_ARGUMENT', 'collectorId'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1' }, 400, 'INVALID_ARGUMENT', 'collector'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: '{"displayName":' }, 400, 'INVALID_ARGUMENT'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: '[]' }, 400, 'INVALID_ARGUMENT', 'collector'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: { displayNme: 'typo' } }, 400, 'INVALID_ARGUMENT', 'collector'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: { state: 'STATE_BOGUS' } }, 400, 'INVALID_ARGUMENT', 'collector.state'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: { expectedAssetCount: 'many' } }, 400, 'INVALID_ARGUMENT', 'collector.expectedAssetCount'],
      ['POST', `${P}/collectors`, { query: 'collectorId=x1', body: { labels: { Env: 'x' } } }, 400, 'INVALID_ARGUMENT', 'collector.labels.Env'],
      ['POST', 'projects/p/locations/mars-north1/collectors', { query: 'collectorId=x1', body: {} }, 404, 'NOT_FOUND'],
      ['PATCH', `${P}/collectors/errs`, { query: 'updateMask=bogus', body: {} }, 400, 'INVALID_ARGUMENT', 'updateMask'],
      ['PATCH', `${P}/collectors/errs`, { query: 'updateMask=state', body: {} }, 400, 'INVALID_ARGUMENT', 'updateMask'],
      ['PATCH', `${P}/collectors/nope`, { query: 'updateMask=displayName', body: {} }, 404, 'NOT_FOUND'],
      ['POST', `${P}/collectors/errs:pause`, { body: {} }, 400, 'FAILED_PRECONDITION'],
      ['POST', `${P}/collectors/errs:explode`, { body: {} }, 404, 'NOT_FOUND'],
      ['GET', `${P}/collectors`, { query: 'pageSize=-1' }, 400, 'INVALID_ARGUMENT', 'pageSize'],
      ['GET', `${P}/collectors`, { query: 'pageToken=garbage' }, 400, 'INVALID_ARGUMENT', 'pageToken'],
      ['GET', `${P}/collectors`, { query: 'filter=' + encodeURIComponent('state = STATE_NONSENSE') }, 400, 'INVALID_ARGUMENT', 'filter'],
      ['GET', `${P}/collectors`, { query: 'filter=' + encodeURIComponent('colour = "red"') }, 400, 'INVALID_ARGUMENT', 'filter'],
      ['GET', `${P}/collectors`, { query: 'filter=' + encodeURIComponent('(state = STATE_ACTIVE') }, 400, 'INVALID_ARGUMENT', 'filter'],
      ['GET', `${P}/collectors`, { query: 'orderBy=' + encodeURIComponent('labels desc') }, 400, 'INVALID_ARGUMENT', 'orderBy'],
      ['GET', `${P}/collectors`, { query: '$alt=proto' }, 400, 'INVALID_ARGUMENT', '$alt'],
      ['GET', `${P}/operations/operation-1`, {}, 404, 'NOT_FOUND'],
      ['POST', `${P}/operations/operation-1:cancel`, {}, 404, 'NOT_FOUND'],
      ['GET', `${P}/annotations/a1`, {}, 404, 'NOT_FOUND'],
      ['GET', `${P}/unknown`, {}, 404, 'NOT_FOUND'],
      ['PUT', `${P}/collectors/errs`, { body: {} }, 405, 'UNIMPLEMENTED'],
    ];
    for (const [method, path, req, status, reason, field] of cases) {
      const res = await send(method, path, req);
      const label = `${method} ${path} ${JSON.stringify(req)} → ${res.text}`;
      expect(res.status, label).toBe(status);
      expect(res.json.error, label).toMatchObject({ code: status, status: reason });
      if (field) {
        const violations = res.json.error.details.find((d: any) => d['@type'].endsWith('BadRequest'))?.fieldViolations ?? [];
        expect(violations.map((v: { field: string }) => v.field), label).toContain(field);
      }
    }
  });
});

describe('listing collectors', () => {
  const L = 'projects/lister/locations/europe-west1';

  beforeAll(async () => {
    const specs: Array<[string, Record<string, unknown>]> = [
      ['alpha', { displayName: 'dc-alpha', labels: { env: 'dev' }, expectedAssetCount: 10 }],
      ['bravo', { displayName: 'dc-bravo', labels: { env: 'prod' }, expectedAssetCount: '500' }],
      ['charlie', { displayName: 'lab-charlie', labels: { env: 'dev', team: 'x' } }],
      ['delta', { displayName: 'dc-delta' }],
    ];
    for (const [id, body] of specs) {
      const res = await send('POST', `${L}/collectors`, { query: `collectorId=${id}`, body });
      await waitDone(res.json.name);
      await sleep(5);
    }
    const reg = await send('POST', `${L}/collectors/bravo:register`, { body: {} });
    await waitDone(reg.json.name);
  });

  const list = async (query: string) => {
    const res = await send('GET', `${L}/collectors`, { query });
    expect(res.status, res.text).toBe(200);
    return res.json as { collectors?: Array<{ name: string; state: string | number }>; nextPageToken?: string };
  };
  const ids = (r: { collectors?: Array<{ name: string }> }) => (r.collectors ?? []).map((c) => c.name.split('/').pop() ?? '');
  const q = (filter: string, extra = '') => `filter=${encodeURIComponent(filter)}${extra}`;

  it('filters with the AIP-160 subset', async () => {
    expect(ids(await list(q('labels.env = "dev"')))).toEqual(['alpha', 'charlie']);
    expect(ids(await list(q('state = STATE_REGISTERED')))).toEqual(['bravo']);
    expect(ids(await list(q('state = 3')))).toEqual(['bravo']);
    expect(ids(await list(q('state != STATE_REGISTERED AND displayName = "dc-*"')))).toEqual(['alpha', 'delta']);
    expect(ids(await list(q('NOT labels:env')))).toEqual(['delta']);
    expect(ids(await list(q('-labels.env:*')))).toEqual(['delta']);
    expect(ids(await list(q('labels.env = "prod" OR labels.team = "x"')))).toEqual(['bravo', 'charlie']);
    // OR binds tighter than AND (AIP-160).
    expect(ids(await list(q('labels.env = "prod" AND displayName = "dc-bravo" OR displayName = "dc-alpha"')))).toEqual(['bravo']);
    expect(ids(await list(q('expectedAssetCount > 100')))).toEqual(['bravo']);
    expect(ids(await list(q('create_time > "2000-01-01T00:00:00Z" AND createTime < "2999-01-01T00:00:00Z"', '&pageSize=5')))).toHaveLength(4);
    expect(ids(await list(q('createTime > 2999-01-01T00:00:00Z')))).toEqual([]);
  });

  it('orders and pages, with opaque tokens bound to the filter and order', async () => {
    expect(ids(await list('orderBy=' + encodeURIComponent('createTime desc')))).toEqual(['delta', 'charlie', 'bravo']);
    const seen: string[] = [];
    let token: string | undefined;
    let calls = 0;
    do {
      const page = await list(`pageSize=1&orderBy=displayName%20desc${token ? `&pageToken=${token}` : ''}`);
      expect(page.collectors).toHaveLength(1);
      seen.push(...ids(page));
      token = page.nextPageToken;
      calls++;
    } while (token);
    expect(calls).toBe(4);
    expect(seen).toEqual(['charlie', 'delta', 'bravo', 'alpha']);

    const first = await list('pageSize=1');
    expect(first.nextPageToken).toBeTruthy();
    const mismatched = await send('GET', `${L}/collectors`, { query: `pageSize=1&pageToken=${first.nextPageToken}&filter=state%3DSTATE_ACTIVE` });
    expect(mismatched.status).toBe(400);
    expect(mismatched.json.error.details[0].fieldViolations[0].field).toBe('pageToken');

    // Default page size 3, maximum 5 (configured for this test).
    expect((await list('')).collectors).toHaveLength(3);
    expect((await list('pageSize=1000')).collectors).toHaveLength(4);
  });

  it('applies partial responses and enum numbers to lists', async () => {
    const res = await send('GET', `${L}/collectors`, { query: `fields=collectors(name,state),nextPageToken&pageSize=2&${INT}` });
    expect(res.json.collectors).toEqual([
      { name: `${L}/collectors/alpha`, state: 2 },
      { name: `${L}/collectors/bravo`, state: 3 },
    ]);
    expect(res.json.nextPageToken).toBeTruthy();
  });
});

describe('operations', () => {
  const L = 'projects/ops/locations/asia-southeast1';

  it('lists operations with a done filter, deletes one, and cancels a queued one', async () => {
    const a = await send('POST', `${L}/collectors`, { query: 'collectorId=o1', body: {} });
    await waitDone(a.json.name);
    const list = await send('GET', `${L}/operations`, { query: 'filter=done%3Dtrue&pageSize=10' });
    expect(list.status).toBe(200);
    expect(list.json.operations.map((o: { name: string }) => o.name)).toContain(a.json.name);
    expect(list.json.operations.every((o: { done: boolean }) => o.done)).toBe(true);

    // Cancel the delete while it waits for its grace period: the collector comes back.
    const del = await send('DELETE', `${L}/collectors/o1`);
    expect((await send('GET', `${L}/collectors/o1`)).json.state).toBe('STATE_DELETING');
    const cancel = await send('POST', `${del.json.name}:cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({});
    const cancelled = await send('GET', del.json.name);
    expect(cancelled.json).toMatchObject({ done: true, error: { code: 1 }, metadata: { requestedCancellation: true } });
    expect(cancelled.json.response).toBeUndefined();
    expect((await send('GET', `${L}/collectors/o1`)).json.state).toBe('STATE_READY_TO_USE');
    await sleep(2500); // past the grace period: the delete's message must not remove it.
    expect((await send('GET', `${L}/collectors/o1`)).status).toBe(200);

    const notDone = await send('GET', `${L}/operations`, { query: 'filter=' + encodeURIComponent('done = false AND metadata.verb = "delete"') });
    expect(notDone.json.operations).toBeUndefined();

    // Cancelling a finished operation changes nothing.
    expect((await send('POST', `${a.json.name}:cancel`, { body: {} })).json).toEqual({});
    expect((await send('GET', a.json.name)).json.response.state).toBe('STATE_READY_TO_USE');

    const removed = await send('DELETE', a.json.name);
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({});
    expect((await send('GET', a.json.name)).status).toBe(404);
  });
});

describe('annotations', () => {
  it('creates an annotation through an operation and reads it back', async () => {
    const res = await send('POST', `${P}/annotations`, { query: `requestId=r-2&${INT}`, body: { labels: { a: 'b' }, type: 1 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.done).toBe(false);
    const done = await waitDone(res.json.name);
    expect(done.response).toMatchObject({
      '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.Annotation',
      labels: { a: 'b' },
      type: 'TYPE_LEGACY_EXPORT_CONSENT',
    });
    const got = await send('GET', done.response.name, { query: INT });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ name: done.response.name, type: 1, labels: { a: 'b' } });
    expect(got.json.name).toMatch(new RegExp(`^${P}/annotations/[0-9a-f-]{36}$`));
  });
});

describe('partial responses on every method (fields, X-Goog-FieldMask)', () => {
  const L = 'projects/fm/locations/europe-west1';
  /** A 400 INVALID_ARGUMENT whose field violation names the parameter and the message names the field. */
  const expectRefused = (res: { status: number; json: any; text: string }, param: string, field: string) => {
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(res.json.error.message).toContain(`Invalid field selection ${field}`);
    expect(res.json.error.details[0].fieldViolations).toEqual([{ field: param, description: expect.stringContaining(field) }]);
  };

  it('reads dot paths like slash paths, on lists, gets and locations', async () => {
    const locations = await send('GET', 'projects/fm/locations', { query: 'fields=locations.name' });
    expect(locations.status, locations.text).toBe(200);
    expect(locations.json.locations).toEqual(['asia-southeast1', 'europe-west1', 'us-central1'].map((id) => ({ name: `projects/fm/locations/${id}` })));
    expect(locations.json).not.toHaveProperty('nextPageToken');

    for (const id of ['d1', 'd2']) await waitDone((await send('POST', `${L}/collectors`, { query: `collectorId=${id}`, body: { displayName: id } })).json.name);
    const dots = await send('GET', `${L}/collectors`, { query: 'fields=collectors.name,collectors.displayName,nextPageToken&pageSize=1' });
    const slashes = await send('GET', `${L}/collectors`, { query: 'fields=collectors/name,collectors/displayName,nextPageToken&pageSize=1' });
    expect(dots.json.collectors).toEqual([{ name: `${L}/collectors/d1`, displayName: 'd1' }]);
    expect(Object.keys(dots.json).sort()).toEqual(['collectors', 'nextPageToken']);
    expect(slashes.json.collectors).toEqual(dots.json.collectors);

    const header = await send('GET', `${L}/collectors/d2`, { headers: { 'x-goog-fieldmask': 'name,state' } });
    expect(header.json).toEqual({ name: `${L}/collectors/d2`, state: 'STATE_READY_TO_USE' });
  });

  it('refuses a field the response message does not have, even where the answer would be empty', async () => {
    expectRefused(await send('GET', 'projects/fm/locations', { query: 'fields=nosuch' }), 'fields', 'nosuch');
    expectRefused(await send('GET', 'projects/empty/locations/us-central1/collectors', { query: 'fields=collectors.nosuch' }), 'fields', 'collectors.nosuch');
    expectRefused(await send('GET', `${L}/operations`, { headers: { 'x-goog-fieldmask': 'operations(name,nosuch)' } }), 'X-Goog-FieldMask', 'operations.nosuch');
    // A list's unreachable and a location's metadata are fields of their messages, though never sent here.
    expect((await send('GET', `${L}/collectors`, { query: 'fields=unreachable' })).json).toEqual({});
    expect((await send('GET', L, { query: 'fields=metadata' })).json).toEqual({});
    // Malformed, or given twice with different selections.
    expectRefused(await send('GET', L, { query: 'fields=name(' }), 'fields', '');
    const both = await send('GET', L, { query: 'fields=name', headers: { 'x-goog-fieldmask': 'locationId' } });
    expect(both.status).toBe(400);
    expect(both.json.error.details[0].fieldViolations.map((v: { field: string }) => v.field).sort()).toEqual(['X-Goog-FieldMask', 'fields']);
  });

  it('shapes long-running operations and refuses before a method changes anything', async () => {
    const refused = await send('POST', `${L}/collectors`, { query: 'collectorId=never&fields=name,nosuch', body: {} });
    expectRefused(refused, 'fields', 'nosuch');
    expect((await send('GET', `${L}/collectors/never`)).status).toBe(404);

    const op = await send('POST', `${L}/collectors`, { query: 'collectorId=d3&fields=name,metadata.verb', body: {} });
    expect(op.status, op.text).toBe(200);
    expect(op.json).toEqual({
      name: expect.stringMatching(new RegExp(`^${L}/operations/`)),
      metadata: { '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.OperationMetadata', verb: 'create' },
    });
    await waitDone(op.json.name);
    const done = await send('GET', op.json.name, { query: 'fields=done,response.name,response.state' });
    expect(done.json).toEqual({
      done: true,
      response: { '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.Collector', name: `${L}/collectors/d3`, state: 'STATE_READY_TO_USE' },
    });
    const paused = await send('POST', `${L}/collectors/d3:register`, { query: 'fields=metadata(target,verb)', body: {} });
    expect(paused.json.metadata).toMatchObject({ target: `${L}/collectors/d3`, verb: 'register' });
    expect(Object.keys(paused.json)).toEqual(['metadata']);

    // Empty answers (DeleteOperation, CancelOperation) have no fields to select.
    expectRefused(await send('DELETE', op.json.name, { query: 'fields=name' }), 'fields', 'name');
    expect((await send('GET', op.json.name)).status).toBe(200);
    const deleted = await send('DELETE', op.json.name, { query: 'fields=*' });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({});
  });
});
