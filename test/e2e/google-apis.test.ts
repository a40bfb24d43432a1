/**
 * The Google-dialect APIs on the whole platform (serverless-offline, dynalite, the SQS server and
 * the dispatcher delivering the operations queue), driven by Google's official discovery clients
 * (`googleapis`: drivelabels v2beta, rapidmigrationassessment v1) pointed at the local base URL, and
 * by raw HTTP written exactly as the GAPIC REST transport sends it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { google, type rapidmigrationassessment_v1 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { gapicClient } from './google-gapic-client.js';
import { AnnotationType, CollectorState } from '#lib/google/migration/model.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'google-e2e-'));
let platform: Emulator;

const start = (env: Record<string, string> = {}) =>
  startEmulator({
    dataDir,
    output: e2eOutput,
    visibilityTimeout: 3,
    env: { MIGRATION_DELETE_GRACE_SECONDS: '2', GOOGLE_DEFAULT_PAGE_SIZE: '50', ...env },
  });

beforeAll(async () => {
  platform = await start();
}, 180_000);
afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function oauth(token = 'test-token') {
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: token });
  return auth;
}

const rmaClient = (token?: string) =>
  google.rapidmigrationassessment({ version: 'v1', rootUrl: `${platform.baseUrl}/`, auth: oauth(token) });

/** The HTTP status of a failed discovery-client call. */
async function failure(p: Promise<unknown>): Promise<{ status: number; message: string; body: any }> {
  try {
    await p;
  } catch (err: any) {
    return { status: err.status ?? err.response?.status, message: err.message, body: err.response?.data };
  }
  throw new Error('the call succeeded but should have failed');
}

async function untilDone(rma: rapidmigrationassessment_v1.Rapidmigrationassessment, name: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await rma.projects.locations.operations.get({ name });
    if (data.done) return data;
    if (Date.now() > deadline) throw new Error(`operation ${name} did not finish`);
    await sleep(150);
  }
}

describe('label limits with googleapis drivelabels v2beta', () => {
  it('returns every field of LabelLimits, int64 values as strings', async () => {
    const drivelabels = google.drivelabels({ version: 'v2beta', rootUrl: `${platform.baseUrl}/`, auth: oauth() });
    const { data, status } = await drivelabels.limits.getLabel({ name: 'limits/label' });
    expect(status).toBe(200);
    expect(Object.keys(data).sort()).toEqual(
      ['fieldLimits', 'maxDeletedFields', 'maxDescriptionLength', 'maxDraftRevisions', 'maxFields', 'maxTitleLength', 'name'].sort(),
    );
    expect(data).toMatchObject({ name: 'limits/label', maxFields: 10 });
    const f = data.fieldLimits!;
    expect(Object.keys(f).sort()).toEqual(
      ['dateLimits', 'integerLimits', 'longTextLimits', 'maxDescriptionLength', 'maxDisplayNameLength', 'maxIdLength', 'selectionLimits', 'textLimits', 'userLimits'].sort(),
    );
    expect(f.integerLimits).toEqual({ minValue: '-9007199254740991', maxValue: '9007199254740991' });
    expect(f.dateLimits).toEqual({ minValue: { year: 1, month: 1, day: 1 }, maxValue: { year: 9999, month: 12, day: 31 } });
    expect(f.selectionLimits).toMatchObject({ listLimits: { maxEntries: expect.any(Number) }, maxChoices: expect.any(Number), maxDeletedChoices: expect.any(Number) });
    expect(f.userLimits?.listLimits?.maxEntries).toEqual(expect.any(Number));
    expect(f.textLimits?.maxLength).toEqual(expect.any(Number));
    expect(f.longTextLimits?.maxLength).toEqual(expect.any(Number));

    const partial = await drivelabels.limits.getLabel({ name: 'limits/label', fields: 'maxFields,fieldLimits/integerLimits', prettyPrint: false, quotaUser: 'q' });
    expect(partial.data).toEqual({ maxFields: 10, fieldLimits: { integerLimits: { minValue: '-9007199254740991', maxValue: '9007199254740991' } } });

    const missing = await failure(drivelabels.limits.getLabel({}));
    expect(missing.status).toBe(400);
    expect(missing.body.error.status).toBe('INVALID_ARGUMENT');
    const wrong = await failure(drivelabels.limits.getLabel({ name: 'limits/other' }));
    expect(wrong.status).toBe(400);
  });
});

describe('migration assessment with googleapis rapidmigrationassessment v1', () => {
  it('runs the collector lifecycle through long-running operations', async () => {
    const rma = rmaClient();
    const parent = 'projects/e2e/locations/us-central1';
    const collectors = rma.projects.locations.collectors;

    const { data: op } = await collectors.create({
      parent,
      collectorId: 'c1',
      requestId: 'r1',
      requestBody: { displayName: 'dc', expectedAssetCount: '10', state: 'STATE_ACTIVE', labels: { env: 'e2e' } },
    });
    expect(op.done).toBe(false);
    const created = await untilDone(rma, op.name!);
    expect(created.response).toMatchObject({ name: `${parent}/collectors/c1`, state: 'STATE_READY_TO_USE', expectedAssetCount: '10' });
    const name = `${parent}/collectors/c1`;

    for (const [verb, state] of [
      ['register', 'STATE_REGISTERED'],
      ['resume', 'STATE_ACTIVE'],
      ['pause', 'STATE_PAUSED'],
      ['resume', 'STATE_ACTIVE'],
    ] as const) {
      const { data } = await collectors[verb]({ name, requestBody: {} });
      expect((await untilDone(rma, data.name!)).response?.state, verb).toBe(state);
      expect((await collectors.get({ name })).data.state).toBe(state);
    }

    const { data: patchOp } = await collectors.patch({ name, updateMask: 'displayName', requestBody: { displayName: 'renamed' } });
    expect((await untilDone(rma, patchOp.name!)).response).toMatchObject({ displayName: 'renamed', labels: { env: 'e2e' } });

    // More collectors to page through, one of them outside the filter.
    for (const [id, env] of [
      ['c2', 'e2e'],
      ['c3', 'e2e'],
      ['c4', 'other'],
    ] as const) {
      const { data } = await collectors.create({ parent, collectorId: id, requestBody: { labels: { env } } });
      await untilDone(rma, data.name!);
    }
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const { data } = await collectors.list({ parent, filter: 'labels.env = "e2e"', pageSize: 1, pageToken, orderBy: 'createTime' });
      expect(data.collectors).toHaveLength(1);
      seen.push(data.collectors![0]!.name!.split('/').pop()!);
      pageToken = data.nextPageToken ?? undefined;
    } while (pageToken);
    expect(seen).toEqual(['c1', 'c2', 'c3']);

    const { data: delOp } = await collectors.delete({ name });
    expect(delOp.done).toBe(false);
    expect((await collectors.get({ name })).data.state).toBe('STATE_DELETING');
    const deleted = await untilDone(rma, delOp.name!);
    expect(deleted.response?.state).toBe('STATE_DECOMMISSIONED');
    const gone = await failure(collectors.get({ name }));
    expect(gone.status).toBe(404);
    expect(gone.body.error.status).toBe('NOT_FOUND');

    const { data: ops } = await rma.projects.locations.operations.list({ name: parent, filter: 'done=true', pageSize: 2 });
    expect(ops.operations).toHaveLength(2);
    expect(ops.nextPageToken).toBeTruthy();
    const { data: locations } = await rma.projects.locations.list({ name: 'projects/e2e', pageSize: 5, extraLocationTypes: ['a', 'b'] });
    expect(locations.locations?.map((l) => l.locationId)).toContain('us-central1');
    const { data: annotationOp } = await rma.projects.locations.annotations.create({ parent, requestBody: { type: 'TYPE_QWIKLAB' } });
    const annotation = (await untilDone(rma, annotationOp.name!)).response!;
    expect((await rma.projects.locations.annotations.get({ name: annotation.name as string })).data.type).toBe('TYPE_QWIKLAB');
  });

  it('reports client mistakes in Google format', async () => {
    const rma = rmaClient();
    const parent = 'projects/e2e-errors/locations/europe-west1';
    const collectors = rma.projects.locations.collectors;

    const unknown = await failure(collectors.get({ name: `${parent}/collectors/nope` }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });

    const { data } = await collectors.create({ parent, collectorId: 'twice', requestBody: {} });
    await untilDone(rma, data.name!);
    const dup = await failure(collectors.create({ parent, collectorId: 'twice', requestBody: {} }));
    expect(dup.status).toBe(409);
    expect(dup.body.error.status).toBe('ALREADY_EXISTS');

    const pause = await failure(collectors.pause({ name: `${parent}/collectors/twice`, requestBody: {} }));
    expect(pause.status).toBe(400);
    expect(pause.body.error.status).toBe('FAILED_PRECONDITION');

    const mask = await failure(collectors.patch({ name: `${parent}/collectors/twice`, updateMask: 'bogus', requestBody: {} }));
    expect(mask.status).toBe(400);
    expect(mask.body.error.status).toBe('INVALID_ARGUMENT');
    expect(mask.body.error.details[0].fieldViolations[0].field).toBe('updateMask');
  });
});

describe('partial responses through googleapis (fields, X-Goog-FieldMask)', () => {
  it('selects dot paths, refuses unknown fields and reads the header, on both APIs', async () => {
    const rma = rmaClient();
    const parent = 'projects/e2e-fields/locations/us-central1';
    const collectors = rma.projects.locations.collectors;
    for (const collectorId of ['f1', 'f2']) {
      const { data } = await collectors.create({ parent, collectorId, requestBody: { displayName: collectorId }, fields: 'name,done' });
      expect(Object.keys(data).sort()).toEqual(['done', 'name']);
      await untilDone(rma, data.name!);
    }
    const names = [`${parent}/collectors/f1`, `${parent}/collectors/f2`];

    const { data: dotted } = await collectors.list({ parent, orderBy: 'name', fields: 'collectors.name' });
    expect(dotted).toEqual({ collectors: names.map((name) => ({ name })) });
    const { data: viaHeader } = await collectors.list({ parent, orderBy: 'name' }, { headers: { 'X-Goog-FieldMask': 'collectors.name' } });
    expect(viaHeader).toEqual(dotted);
    const { data: locations } = await rma.projects.locations.list({ name: 'projects/e2e-fields', fields: 'locations.locationId' });
    expect(locations.locations).toContainEqual({ locationId: 'us-central1' });
    expect(locations.locations!.every((l) => Object.keys(l).join() === 'locationId')).toBe(true);

    const refusals = [
      [() => collectors.list({ parent, fields: 'nosuch' }), 'nosuch'],
      // An empty list: the field is checked against the message, not the answer.
      [() => collectors.list({ parent: 'projects/e2e-fields/locations/europe-west1', fields: 'collectors.nosuch' }), 'collectors.nosuch'],
      [() => collectors.get({ name: names[0]! }, { headers: { 'X-Goog-FieldMask': 'name,nosuch' } }), 'nosuch'],
      [() => collectors.pause({ name: names[0]!, fields: 'metadata.nosuch', requestBody: {} }), 'metadata.nosuch'],
    ] as const;
    for (const [call, field] of refusals) {
      const refused = await failure(call());
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(`Invalid field selection ${field}`) });
    }

    const drivelabels = google.drivelabels({ version: 'v2beta', rootUrl: `${platform.baseUrl}/`, auth: oauth() });
    const { data: limits } = await drivelabels.limits.getLabel({ name: 'limits/label', fields: 'maxFields,fieldLimits.integerLimits.maxValue' });
    expect(limits).toEqual({ maxFields: 10, fieldLimits: { integerLimits: { maxValue: '9007199254740991' } } });
    const { data: limitsViaHeader } = await drivelabels.limits.getLabel({ name: 'limits/label' }, { headers: { 'X-Goog-FieldMask': 'maxFields,fieldLimits.integerLimits.maxValue' } });
    expect(limitsViaHeader).toEqual(limits);
    const noLimit = await failure(drivelabels.limits.getLabel({ name: 'limits/label', fields: 'nosuch' }));
    expect(noLimit.status).toBe(400);
    expect(noLimit.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('Invalid field selection nosuch') });
  });
});

describe('migration assessment over raw HTTP as the GAPIC REST transport sends it', () => {
  const P = 'projects/p/locations/us-central1';
  const ALT = '$alt=json%3Benum-encoding=int';
  const gapic = async (method: string, pathAndQuery: string, body?: unknown, routing?: string) => {
    const res = await fetch(`${platform.baseUrl}/v1/${pathAndQuery}`, {
      method,
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer test-token',
        'x-goog-api-client': 'gax/6.17.0 gapic/2.1.0 gl-node/20.20.2 grpc-web/6.17.0-fallback',
        ...(routing ? { 'x-goog-request-params': routing } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), json: text ? JSON.parse(text) : undefined, text };
  };
  const poll = async (name: string) => {
    for (let i = 0; i < 150; i++) {
      const res = await gapic('GET', `${name}?`);
      expect(res.status).toBe(200);
      if (res.json.done) return res.json;
      await sleep(150);
    }
    throw new Error(`operation ${name} did not finish`);
  };

  it('runs the lifecycle with numeric enums', async () => {
    const loc = await gapic('GET', `${P}?${ALT}`);
    expect(loc.status).toBe(200);
    expect(loc.type).toBe('application/json; charset=UTF-8');
    expect(loc.json.metadata).toBeUndefined();

    const create = await gapic(
      'POST',
      `${P}/collectors?collectorId=g1&requestId=8e6d7a8e-1111-4111-8111-111111111111&${ALT}`,
      { labels: { env: 'dev' }, displayName: 'dc-1', serviceAccount: 'sa@p.iam.gserviceaccount.com', expectedAssetCount: '1000', state: 4, collectionDays: 7 },
      `parent=${encodeURIComponent(P)}`,
    );
    expect(create.status, create.text).toBe(200);
    expect(create.json.done).toBe(false);
    const created = await poll(create.json.name);
    expect(created.response).toMatchObject({ '@type': 'type.googleapis.com/google.cloud.rapidmigrationassessment.v1.Collector', state: 'STATE_READY_TO_USE' });

    const name = `${P}/collectors/g1`;
    const got = await gapic('GET', `${name}?${ALT}`);
    expect(got.json).toMatchObject({ state: 2, expectedAssetCount: '1000', collectionDays: 7, labels: { env: 'dev' } });

    for (const [i, [verb, state]] of ([
      ['register', 3],
      ['resume', 4],
      ['pause', 5],
      ['resume', 4],
    ] as const).entries()) {
      const res = await gapic('POST', `${name}:${verb}?${ALT}`, { requestId: `r-${verb}-${i}` }, `name=${encodeURIComponent(name)}`);
      expect(res.status, res.text).toBe(200);
      await poll(res.json.name);
      expect((await gapic('GET', `${name}?${ALT}`)).json.state).toBe(state);
      // The operation, read again with $alt, carries the number too.
      expect((await gapic('GET', `${res.json.name}?${ALT}`)).json.response.state).toBe(state);
    }

    const patch = await gapic('PATCH', `${name}?updateMask=display_name%2Cdescription&requestId=r-3&${ALT}`, { labels: {}, displayName: 'renamed', description: 'x' });
    expect(patch.status).toBe(200);
    expect((await poll(patch.json.name)).response).toMatchObject({ displayName: 'renamed', description: 'x', labels: { env: 'dev' } });

    const list = await gapic('GET', `${P}/collectors?pageSize=1&filter=state%20%3D%20STATE_ACTIVE&orderBy=createTime%20desc&${ALT}`);
    expect(list.status).toBe(200);
    expect(list.json.collectors).toEqual([expect.objectContaining({ name, state: 4 })]);

    const annotation = await gapic('POST', `${P}/annotations?requestId=r-2&${ALT}`, { labels: { a: 'b' }, type: 1 });
    const annotated = await poll(annotation.json.name);
    expect((await gapic('GET', `${annotated.response.name}?${ALT}`)).json.type).toBe(1);

    const del = await gapic('DELETE', `${name}?requestId=r-del&${ALT}`);
    expect(del.status).toBe(200);
    expect((await gapic('GET', `${name}?${ALT}`)).json.state).toBe(6);
    // Cancel it while it waits out the grace period: it ends CANCELLED and the collector is back.
    const cancel = await gapic('POST', `${del.json.name}:cancel?`, {});
    expect(cancel).toMatchObject({ status: 200, json: {} });
    expect((await gapic('GET', `${del.json.name}?`)).json).toMatchObject({ done: true, error: { code: 1 } });
    expect((await gapic('GET', `${name}?${ALT}`)).json.state).toBe(4);

    const del2 = await gapic('DELETE', `${name}?requestId=r-del-2&${ALT}`);
    await poll(del2.json.name);
    const gone = await gapic('GET', `${name}?${ALT}`);
    expect(gone.status).toBe(404);
    expect(gone.json.error.status).toBe('NOT_FOUND');

    const ops = await gapic('GET', `${P}/operations?filter=done%3Dtrue&pageSize=10`);
    expect(ops.json.operations.length).toBeGreaterThan(3);
    const removed = await gapic('DELETE', `${del2.json.name}?`);
    expect(removed).toMatchObject({ status: 200, json: {} });
    expect((await gapic('GET', `${del2.json.name}?`)).status).toBe(404);
  });
});

describe('migration assessment with the GAPIC REST transport (google-gax 5, fallback: true)', () => {
  it('runs the lifecycle with operation promises, auto-pagination and the mixin clients', async () => {
    const url = new URL(platform.baseUrl);
    const client = gapicClient({ host: url.hostname, port: Number(url.port), token: 'test-token' });
    // Messages decoded from an Any carry enum numbers; plain responses may carry names.
    const state = (v: unknown) => (typeof v === 'number' ? CollectorState.names[v] : v);
    const ops = client.operationsClient as any;
    const locationsClient = client.locationsClient as any;
    const parent = 'projects/gapic/locations/us-central1';
    const name = `${parent}/collectors/g1`;
    try {
      const [createOp] = await client.call(
        'createCollector',
        {
          parent,
          collectorId: 'g1',
          requestId: '8e6d7a8e-2222-4222-8222-222222222222',
          collector: { displayName: 'dc-1', labels: { env: 'dev' }, expectedAssetCount: 1000, serviceAccount: 'sa@p.iam.gserviceaccount.com', collectionDays: 7 },
        },
        { parent },
      );
      const [created] = await createOp.promise();
      // Decoded protobuf messages: enums as numbers, int64 as Long.
      expect(created).toMatchObject({ name, displayName: 'dc-1', collectionDays: 7, labels: { env: 'dev' } });
      expect(state(created.state)).toBe('STATE_READY_TO_USE');
      expect(Number(created.expectedAssetCount)).toBe(1000);
      expect(created.createTime.seconds).toBeTruthy();

      for (const [verb, want] of [
        ['registerCollector', 'STATE_REGISTERED'],
        ['resumeCollector', 'STATE_ACTIVE'],
        ['pauseCollector', 'STATE_PAUSED'],
        ['resumeCollector', 'STATE_ACTIVE'],
      ] as const) {
        const [op] = await client.call(verb, { name }, { name });
        const [collector, metadata] = await op.promise();
        expect(state(collector.state), verb).toBe(want);
        expect(metadata).toMatchObject({ target: name, apiVersion: 'v1' });
      }

      const [updateOp] = await client.call(
        'updateCollector',
        { collector: { name, displayName: 'renamed', description: 'x' }, updateMask: { paths: ['display_name', 'description'] }, requestId: 'r-3' },
        { 'collector.name': name },
      );
      expect((await updateOp.promise())[0]).toMatchObject({ displayName: 'renamed', description: 'x', labels: { env: 'dev' } });

      for (const id of ['g2', 'g3']) {
        const [op] = await client.call('createCollector', { parent, collectorId: id, collector: { labels: { env: 'dev' } } }, { parent });
        await op.promise();
      }
      // Auto-pagination walks every page of one.
      const [all] = await client.call('listCollectors', { parent, pageSize: 1, filter: 'labels.env = "dev"', orderBy: 'createTime desc' }, { parent });
      expect(all.map((c: { name: string }) => c.name.split('/').pop())).toEqual(['g3', 'g2', 'g1']);

      const [annotationOp] = await client.call('createAnnotation', { parent, annotation: { type: 'TYPE_QWIKLAB', labels: { a: 'b' } }, requestId: 'r-a' }, { parent });
      const [annotation] = await annotationOp.promise();
      const [fetched] = await client.call('getAnnotation', { name: annotation.name }, { name: annotation.name });
      expect(fetched.labels).toEqual({ a: 'b' });
      expect(typeof fetched.type === 'number' ? AnnotationType.names[fetched.type] : fetched.type).toBe('TYPE_QWIKLAB');

      const [location] = await locationsClient.getLocation({ name: parent });
      expect(location).toMatchObject({ name: parent, locationId: 'us-central1' });
      const locations: string[] = [];
      for await (const l of locationsClient.listLocationsAsync({ name: 'projects/gapic', pageSize: 1 })) locations.push(l.locationId);
      expect(locations).toContain('us-central1');

      const unknown = await client.call('getCollector', { name: `${parent}/collectors/nope` }, { name: `${parent}/collectors/nope` }).catch((e: any) => e);
      // gax 5 reports the HTTP status (a known gaxios 7 regression); later gax the rpc code.
      expect([5, 404]).toContain(unknown.code);

      const [deleteOp] = await client.call('deleteCollector', { name, requestId: 'r-del' }, { name });
      const [during] = await client.call('getCollector', { name }, { name });
      expect(state(during.state)).toBe('STATE_DELETING');
      const [deleted] = await deleteOp.promise();
      expect(state(deleted.state)).toBe('STATE_DECOMMISSIONED');
      const gone = await client.call('getCollector', { name }, { name }).catch((e: any) => e);
      expect([5, 404]).toContain(gone.code);

      const [done] = await ops.listOperations({ name: parent, filter: 'done=true', pageSize: 50 });
      expect(done.length).toBeGreaterThanOrEqual(8);
      const [cancelled] = await ops.cancelOperation({ name: deleteOp.name });
      expect(cancelled).toEqual({});
      await ops.deleteOperation({ name: deleteOp.name });
      const missing = await ops.getOperation({ name: deleteOp.name }).catch((e: any) => e);
      expect([5, 404]).toContain(missing.code);
    } finally {
      await client.close();
    }
  });
});

describe('restarts and enforced authentication', () => {
  it('finishes an operation that was running when the platform stopped; enforced mode takes the dev key', async () => {
    const parent = 'projects/restart/locations/us-central1';
    const name = `${parent}/collectors/survivor`;
    let rma = rmaClient();
    const { data } = await rma.projects.locations.collectors.create({ parent, collectorId: 'survivor', requestBody: {} });
    await untilDone(rma, data.name!);
    // Delete (2 s grace), then stop at once: the operation is still waiting in the queue.
    const { data: delOp } = await rma.projects.locations.collectors.delete({ name });
    expect(delOp.done).toBe(false);
    await platform.stop();

    platform = await start({ GOOGLE_AUTH_MODE: 'enforced' });
    const anonymous = rmaClient('not-a-key');
    expect((await failure(anonymous.projects.locations.operations.get({ name: delOp.name! }))).status).toBe(401);

    rma = rmaClient(platform.apiKey);
    const finished = await untilDone(rma, delOp.name!, 30_000);
    expect(finished.response?.state).toBe('STATE_DECOMMISSIONED');
    expect((await failure(rma.projects.locations.collectors.get({ name }))).status).toBe(404);

    const drivelabels = google.drivelabels({ version: 'v2beta', rootUrl: `${platform.baseUrl}/`, auth: platform.apiKey });
    expect((await drivelabels.limits.getLabel({ name: 'limits/label' })).data.maxFields).toBe(10);
    const noKey = google.drivelabels({ version: 'v2beta', rootUrl: `${platform.baseUrl}/` });
    const denied = await failure(noKey.limits.getLabel({ name: 'limits/label' }));
    expect(denied.status).toBe(401);
    expect(denied.body.error.status).toBe('UNAUTHENTICATED');
  }, 240_000);
});
