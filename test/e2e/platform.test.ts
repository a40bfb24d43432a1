/**
 * The whole service as `npm start` runs it: embedded backends, serverless-offline on a free port,
 * the dispatcher. Driven over HTTP like any client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { e2eOutput } from '../support/platform-output.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'platform-e2e-'));
let platform: Emulator;

/** The first start runs the esbuild bundles as deployed; the restart runs the TypeScript sources, as npm start does. */
const start = (bundle = false) => startEmulator({ dataDir, bundle, output: e2eOutput });

// Bundling every function first takes a minute on two idle cores, several under load.
beforeAll(async () => {
  platform = await start(true);
}, 420_000);
afterAll(async () => {
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function graphql(query: string): Promise<any> {
  const res = await fetch(`${platform.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe('the platform under serverless-offline', () => {
  it('answers GET /v2/users/me with the development key, 401 without', async () => {
    const ok = await fetch(`${platform.baseUrl}/v2/users/me`, { headers: { authorization: `Bearer ${platform.apiKey}` } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { data: { id: number; links: { self: string } } };
    expect(body.data.id).toBe(1);
    expect(body.data.links.self).toBe(`${platform.baseUrl}/v2/users/1`);
    expect(ok.headers.get('x-ratelimit-limit')).toBeTruthy();

    const denied = await fetch(`${platform.baseUrl}/v2/users/me`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('routes unknown paths and methods to clear 404/405 answers in each dialect', async () => {
    const unknown = await fetch(`${platform.baseUrl}/v2/unknown/thing`);
    if (unknown.status !== 404) console.log(await unknown.clone().text(), platform.baseUrl);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND' });

    const wrongMethod = await fetch(`${platform.baseUrl}/v2/users/me`, { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PATCH');

    const google = await fetch(`${platform.baseUrl}/v1/projects/p/locations/l/unknown`);
    expect(google.status).toBe(404);
    expect(((await google.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  it('answers CORS preflights at the gateway', async () => {
    const res = await fetch(`${platform.baseUrl}/v2/users/me`, {
      method: 'OPTIONS',
      headers: { origin: 'http://example.test', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toMatch(/\*|http:\/\/example\.test/);
  });

  it('serves the creature GraphQL API at /graphql', async () => {
    const res = await graphql('{ creatures { id name } }');
    expect(res.data.creatures).toHaveLength(150);
    const name = res.data.creatures[42].name as string;
    const one = await graphql(`{ creature(name: "${name.toUpperCase()}") { name weight { minimum maximum } evolutions { name } } }`);
    expect(one.data.creature.name).toBe(name);
  });

  it('answers uncompressed, as an HTTP API does, to clients that accept gzip, but for the whole discovery list; precompressed assets keep their encoding', async () => {
    const gzip = { 'accept-encoding': 'gzip, deflate, br' };
    // node:http, not fetch: fetch would decompress and hide the encoding.
    const raw = (url: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = request(url, { method: body ? 'POST' : 'GET', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const query = JSON.stringify({ query: '{ creatures { id name attacks { fast { name } } } }' });
    const answer = await raw(`${platform.baseUrl}/graphql`, { ...gzip, 'content-type': 'application/json' }, query);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(answer.body.toString()).data.creatures).toHaveLength(150);
    const small = await raw(`${platform.baseUrl}/v2/operations?filter[operation]=optimize`, { ...gzip, authorization: `Bearer ${platform.apiKey}` });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString()).data.length).toBeGreaterThan(1);
    // Discovery's whole list (thousands of pairs) is the one answer large enough to be gzipped for a client
    // that takes it: a Lambda answer may not exceed 6 MB (lib/file-api/operations/discovery.ts).
    const all = await raw(`${platform.baseUrl}/v2/operations`, { ...gzip, authorization: `Bearer ${platform.apiKey}` });
    expect(all.status).toBe(200);
    expect(all.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(all.body).toString()).data.length).toBeGreaterThan(1000);
    const asset = await raw(`${platform.baseUrl}/graphql/assets/graphiql.js`, { 'accept-encoding': 'gzip' });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(asset.body).length).toBeGreaterThan(asset.body.length);
  });

  it('keeps its data across a restart: the same key still works, messages are still there', async () => {
    const created = await graphql('mutation { createMessage(input: { content: "kept", author: "e2e" }) { id } }');
    const id = created.data.createMessage.id as string;
    const key = platform.apiKey;
    await platform.stop();
    platform = await start();
    expect(platform.apiKey).toBe(key);
    const res = await fetch(`${platform.baseUrl}/v2/users/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const read = await graphql(`{ getMessage(id: "${id}") { id content author } }`);
    expect(read.data.getMessage).toEqual({ id, content: 'kept', author: 'e2e' });
  });
});
