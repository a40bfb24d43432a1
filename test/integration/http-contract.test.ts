/**
 * The HTTP contract every route shares, exercised in-process on real route chains against dynalite:
 * authentication and scopes, rate limits, body parsing, validation and error rendering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import type * as FileApi from '#lib/wiring/file-api.js';
import type * as Route from '#lib/http/middleware/route.js';
import type * as Dialects from '#lib/http/dialects.js';
import type * as UsersMe from '#functions/account/users-me.js';
import type * as Fallback from '#functions/fallback/not-found.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let fullKey: string;
let readOnlyKey: string;
let revokedKey: string;

// Loaded after the environment is set, as a cold start would.
let mod: {
  fileApiRoute: typeof FileApi.fileApiRoute;
  apiKeys: typeof FileApi.apiKeys;
  route: typeof Route.route;
  renderGoogleError: typeof Dialects.renderGoogleError;
  usersMe: typeof UsersMe.handler;
  fallback: typeof Fallback.handler;
};

beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table, RATE_LIMIT: '3', MAX_BODY_BYTES: '2000', RATE_LIMIT_WINDOW_SECONDS: '86400' });
  const [fileApi, route, dialects, usersMe, fallback] = await Promise.all([
    import('#lib/wiring/file-api.js'),
    import('#lib/http/middleware/route.js'),
    import('#lib/http/dialects.js'),
    import('#functions/account/users-me.js'),
    import('#functions/fallback/not-found.js'),
  ]);
  mod = {
    fileApiRoute: fileApi.fileApiRoute,
    apiKeys: fileApi.apiKeys,
    route: route.route,
    renderGoogleError: dialects.renderGoogleError,
    usersMe: usersMe.handler,
    fallback: fallback.handler,
  };
  const keys = mod.apiKeys();
  fullKey = (await keys.create({ scopes: ['user.read', 'task.read', 'task.write'] })).key;
  readOnlyKey = (await keys.create({ scopes: ['task.read'] })).key;
  const revoked = await keys.create({ scopes: ['user.read'] });
  revokedKey = revoked.key;
  await keys.revoke(revoked.record.keyId);
});
afterAll(() => backend.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('API keys and scopes', () => {
  it('GET /v2/users/me answers the account for a valid key', async () => {
    const res = await call(mod.usersMe, { path: '/v2/users/me', headers: bearer(fullKey) });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: 1, username: 'local', credits: expect.any(Number) });
    expect(res.json.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(res.json.data.links.self).toBe('http://localhost:4000/v2/users/1');
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown key', bearer('key_not-a-real-key-at-all')],
    ['a revoked key', { authorization: '' }],
    ['a malformed header', { authorization: 'Basic abc' }],
  ])('is 401 UNAUTHENTICATED with %s', async (_label, headers) => {
    const h = _label === 'a revoked key' ? bearer(revokedKey) : headers;
    const res = await call(mod.usersMe, { path: '/v2/users/me', headers: h as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: 'Unauthenticated.', code: 'UNAUTHENTICATED' });
  });

  it('is 403 when the key lacks the scope, naming the scope', async () => {
    const res = await call(mod.usersMe, { path: '/v2/users/me', headers: bearer(readOnlyKey) });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('FORBIDDEN');
    expect(res.json.message).toContain('user.read');
  });

  it('never echoes the key, and gives every response a request id', async () => {
    const res = await call(mod.usersMe, { path: '/v2/users/me', headers: bearer(fullKey) });
    expect(res.text).not.toContain(fullKey);
    expect(res.headers['x-request-id']).toMatch(/[0-9a-f-]{36}/);
  });
});

describe('request bodies and validation', () => {
  const schema = { body: z.object({ name: z.string().min(1), count: z.number().int().max(10).optional() }) };
  let create: ReturnType<typeof FileApi.fileApiRoute>;
  beforeAll(() => {
    create = mod.fileApiRoute({ scope: 'task.write', schemas: schema, bodyRequired: true }, async (req) => ({
      status: 201,
      body: { data: req.body },
    }));
  });
  const post = (body: string | undefined, type = 'application/json') =>
    call(create, { method: 'POST', path: '/v2/things', headers: { ...bearer(fullKey), 'content-type': type }, body });

  it('accepts a valid JSON body', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 2 }));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ data: { name: 'a', count: 2 } });
  });

  it('is 422 INVALID_DATA with every offending field', async () => {
    const res = await post(JSON.stringify({ name: '', count: 99 }));
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('INVALID_DATA');
    expect(res.json.message).toBe('The given data was invalid.');
    expect(Object.keys(res.json.errors).sort()).toEqual(['count', 'name']);
    expect(res.json.errors.count[0]).toMatch(/10/);
  });

  it('is 400 for malformed JSON, 415 for another media type, 413 when too large', async () => {
    const malformed = await post('{"name": ');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ code: 'INVALID_DATA', message: 'The request body is not valid JSON.' });

    const text = await post('name=a', 'text/plain');
    expect(text.status).toBe(415);
    expect(text.json.code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const big = await post(JSON.stringify({ name: 'x'.repeat(5000) }));
    expect(big.status).toBe(413);
    expect(big.json.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('is 400 when a required body is missing', async () => {
    const res = await post(undefined);
    expect(res.status).toBe(400);
  });

  it('answers an unexpected failure with a generic 500, never its details', async () => {
    const broken = mod.fileApiRoute({ scope: 'task.read', body: 'none' }, async () => {
      throw new Error('database password is hunter2');
    });
    const res = await call(broken, { path: '/v2/broken', headers: bearer(fullKey) });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ message: 'Internal server error.', code: 'INTERNAL_ERROR' });
  });
});

describe('rate limits', () => {
  it('counts creations per key and refuses past the limit with 429 and Retry-After', async () => {
    const { key } = await mod.apiKeys().create({ scopes: ['task.read', 'task.write'] });
    const creating = mod.fileApiRoute({ scope: 'task.write', rateLimited: true, body: 'none' }, async () => ({ status: 201, body: {} }));
    const reading = mod.fileApiRoute({ scope: 'task.read', body: 'none' }, async () => ({ status: 200, body: {} }));
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => call(creating, { method: 'POST', path: '/v2/jobs', headers: bearer(key) })),
    );
    const statuses = burst.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    const refused = burst.find((r) => r.status === 429)!;
    expect(refused.json.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(86400);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');

    // Reads do not count but still report the allowance.
    const read = await call(reading, { path: '/v2/jobs', headers: bearer(key) });
    expect(read.status).toBe(200);
    expect(read.headers['x-ratelimit-limit']).toBe('3');
    expect(read.headers['x-ratelimit-remaining']).toBe('0');

    // Another key has its own allowance.
    const other = await call(creating, { method: 'POST', path: '/v2/jobs', headers: bearer(fullKey) });
    expect(other.status).toBe(201);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });
});

describe('unknown routes and methods', () => {
  it('is 404 in the file API format for an unknown /v2 path', async () => {
    const res = await call(mod.fallback, { path: '/v2/nothing-here' });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('NOT_FOUND');
  });

  it('is 405 with Allow for a known path and another method', async () => {
    const res = await call(mod.fallback, { method: 'DELETE', path: '/v2/users/me' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH');
    expect(res.json.code).toBe('METHOD_NOT_ALLOWED');
  });

  it("is 404 in Google's format under /v1 and /v2beta", async () => {
    for (const path of ['/v1/projects/p/nothing', '/v2beta/nothing']) {
      const res = await call(mod.fallback, { path });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    }
  });
});

describe("Google's error format", () => {
  it('renders field violations as google.rpc.BadRequest', async () => {
    const g = mod.route(
      { render: mod.renderGoogleError, schemas: { query: z.object({ name: z.literal('limits/label') }) }, body: 'none' },
      async () => ({ status: 200, body: {} }),
    );
    const res = await call(g, { path: '/v2beta/limits/label', query: 'name=bad' });
    expect(res.status).toBe(400);
    expect(res.json.error.status).toBe('INVALID_ARGUMENT');
    expect(res.json.error.details[0]['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
    expect(res.json.error.details[0].fieldViolations[0].field).toBe('query.name');
  });
});
