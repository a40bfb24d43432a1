/**
 * API keys through the API (GET/POST /v2/users/me/api-keys, DELETE /v2/users/me/api-keys/{id}) in-process
 * against dynalite: the route chains as deployed, with keys, the console's token and a third-party
 * application's token as the callers. The rules of lib/file-api/api-keys/rules.ts, each by a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys, hashKey } from '#lib/access/auth/keys.js';
import { FILE_API_SCOPES } from '#lib/access/auth/scopes.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { TokenStore } from '#lib/access/oauth/tokens.js';
import { consoleAccessToken } from '#lib/web/console/token.js';

type Handler = Parameters<typeof call>[0];
const h = {} as Record<'list' | 'create' | 'revoke' | 'me', Handler>;
let backend: Awaited<ReturnType<typeof startStateBackend>>;
let keys: ApiKeys;
let tokens: TokenStore;
let accounts: Accounts;
let seq = 0;
/** A user of its own for each test: the live-key limit counts per user. */
const newUser = async () => (await accounts.create({ email: `user${++seq}@example.com`, username: `User ${seq}`, password: 'user-password-123' })).user.id;
const MAX = 5;

beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table, MAX_API_KEYS_PER_USER: String(MAX) });
  const load = async (path: string) => ((await import(path)) as { handler: Handler }).handler;
  [h.list, h.create, h.revoke, h.me] = await Promise.all([
    load('#functions/api-keys/list.js'),
    load('#functions/api-keys/create.js'),
    load('#functions/api-keys/revoke.js'),
    load('#functions/account/users-me.js'),
  ]);
  accounts = new Accounts(backend.store, { username: 'local', email: 'local@example.com', credits: 1000 });
  keys = new ApiKeys(backend.store);
  tokens = new TokenStore(backend.store, { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 3600 });
}, 60_000);
afterAll(() => backend?.close());

const auth = (bearer: string) => ({ authorization: `Bearer ${bearer}` });
const base = (sandbox: boolean): { prefix: string; pathParameters: Record<string, string> } =>
  sandbox ? { prefix: '/sandbox', pathParameters: { apiBase: 'sandbox' } } : { prefix: '', pathParameters: {} };
const list = (bearer: string, sandbox = false) =>
  call(h.list, { path: `${base(sandbox).prefix}/v2/users/me/api-keys`, query: 'per_page=1000', headers: auth(bearer), pathParameters: base(sandbox).pathParameters });
const create = (bearer: string, body: unknown, sandbox = false) =>
  call(h.create, {
    method: 'POST',
    path: `${base(sandbox).prefix}/v2/users/me/api-keys`,
    headers: { ...auth(bearer), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    pathParameters: base(sandbox).pathParameters,
  });
const revoke = (bearer: string, id: string, sandbox = false) =>
  call(h.revoke, { method: 'DELETE', path: `${base(sandbox).prefix}/v2/users/me/api-keys/${id}`, headers: auth(bearer), pathParameters: { ...base(sandbox).pathParameters, id } });
const me = (bearer: string) => call(h.me, { path: '/v2/users/me', headers: auth(bearer) });
const keyOf = async (userId: number, scopes: string[] = ['user.read', 'user.write', 'task.read'], sandbox = false) =>
  (await keys.create({ userId, scopes: scopes as never, name: 'made by test', sandbox })).key;

describe('create, list, revoke', () => {
  it('creates a key whose secret works once shown, lists it without any secret, and revokes it', async () => {
    const ann = await newUser();
    const parent = await keyOf(ann);
    const made = await create(parent, { name: 'ci runner', scopes: ['user.read', 'task.read'] });
    expect(made.status).toBe(201);
    const { key, ...record } = made.json.data;
    expect(record).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), name: 'ci runner', scopes: ['user.read', 'task.read'], sandbox: false, created_at: expect.any(String), revoked_at: null });
    expect(record.id).toBe(hashKey(key).slice(0, 16));
    expect((await me(key)).json.data.id).toBe(ann);

    const listed = await list(parent);
    expect(listed.status).toBe(200);
    const mine = listed.json.data.find((k: { id: string }) => k.id === record.id);
    expect(mine).toEqual(record);
    // Neither the secret nor its hash is in the list.
    expect(listed.text).not.toContain(key);
    expect(listed.text).not.toContain(hashKey(key));
    expect(Object.keys(mine).sort()).toEqual(['created_at', 'id', 'name', 'revoked_at', 'sandbox', 'scopes']);

    expect((await revoke(parent, record.id)).status).toBe(204);
    expect((await me(key)).status).toBe(401);
    const after = (await list(parent)).json.data.find((k: { id: string }) => k.id === record.id);
    expect(after.revoked_at).toEqual(expect.any(String));
    // Again: still 204, the first revocation's time kept.
    expect((await revoke(parent, record.id)).status).toBe(204);
    expect((await list(parent)).json.data.find((k: { id: string }) => k.id === record.id).revoked_at).toBe(after.revoked_at);
  });

  it("lists only the caller's keys, newest first, and answers another user's key id like an unknown one", async () => {
    const [ann, bob] = [await newUser(), await newUser()];
    const annKey = await keyOf(ann);
    const bobKey = await keyOf(bob);
    const bobs = (await create(bobKey, { name: 'bob second', scopes: ['user.read'] })).json.data;
    const annList = (await list(annKey)).json.data as Array<{ id: string; created_at: string }>;
    expect(annList.map((k) => k.id)).not.toContain(bobs.id);
    expect(annList.map((k) => k.id)).toContain(hashKey(annKey).slice(0, 16));
    const bobList = (await list(bobKey)).json.data as Array<{ id: string; created_at: string }>;
    expect(bobList.map((k) => k.id)).toEqual([bobs.id, hashKey(bobKey).slice(0, 16)]);

    const foreign = await revoke(annKey, bobs.id);
    const unknown = await revoke(annKey, '0123456789abcdef');
    expect([foreign.status, foreign.json.code]).toEqual([404, unknown.json.code]);
    expect(unknown.status).toBe(404);
    expect((await me(bobs.key)).status).toBe(200);
    expect((await revoke(annKey, 'not-an-id')).status).toBe(422);
  });

  it('needs user.read to list and user.write to create and revoke', async () => {
    const ann = await newUser();
    const readOnly = await keyOf(ann, ['user.read', 'task.read']);
    expect((await list(readOnly)).status).toBe(200);
    expect((await create(readOnly, { name: 'x', scopes: ['task.read'] })).status).toBe(403);
    expect((await revoke(readOnly, hashKey(readOnly).slice(0, 16))).status).toBe(403);
    const writeOnly = await keyOf(ann, ['user.write']);
    expect((await list(writeOnly)).status).toBe(403);
  });
});

describe('authority', () => {
  it('refuses scopes beyond the caller’s with 422 naming scopes, and unknown scopes the same way', async () => {
    const ann = await newUser();
    const parent = await keyOf(ann, ['user.read', 'user.write', 'task.read']);
    const wider = await create(parent, { name: 'wider', scopes: ['task.read', 'task.write'] });
    expect([wider.status, wider.json.code]).toEqual([422, 'INVALID_DATA']);
    expect(Object.keys(wider.json.errors)).toEqual(['scopes']);
    expect(wider.json.errors.scopes[0]).toContain('task.write');
    const unknown = await create(parent, { name: 'odd', scopes: ['task.everything'] });
    expect([unknown.status, Object.keys(unknown.json.errors)]).toEqual([422, ['scopes']]);
    expect((await create(parent, { name: 'none', scopes: [] })).json.errors.scopes).toBeDefined();
  });

  it('checks the name: 1 to 100 characters', async () => {
    const ann = await newUser();
    const parent = await keyOf(ann);
    for (const name of ['', '   ', 'n'.repeat(101)]) {
      const res = await create(parent, { name, scopes: ['user.read'] });
      expect([res.status, Object.keys(res.json.errors ?? {})], JSON.stringify(name)).toEqual([422, ['name']]);
    }
    expect((await create(parent, { name: 'n'.repeat(100), scopes: ['user.read'] })).status).toBe(201);
  });

  it('a sandbox credential makes only sandbox keys and sees only them; a live one may make a sandbox key', async () => {
    const user = await newUser();
    const sandboxKey = await keyOf(user, ['user.read', 'user.write'], true);
    const made = await create(sandboxKey, { name: 'sbx child', scopes: ['user.read'] }, true);
    expect([made.status, made.json.data.sandbox]).toEqual([201, true]);
    const live = await create(sandboxKey, { name: 'live child', scopes: ['user.read'], sandbox: false }, true);
    expect([live.status, Object.keys(live.json.errors)]).toEqual([422, ['sandbox']]);
    // The child is a sandbox key: the sandbox base takes it, a live base does not.
    expect((await me(made.json.data.key)).status).toBe(401);
    const listed = (await list(sandboxKey, true)).json.data as Array<{ sandbox: boolean }>;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((k) => k.sandbox)).toBe(true);

    const liveParent = await keyOf(user);
    const fromLive = await create(liveParent, { name: 'sbx from live', scopes: ['user.read'], sandbox: true });
    expect([fromLive.status, fromLive.json.data.sandbox]).toEqual([201, true]);
    // A live key cannot be revoked through the sandbox.
    expect((await revoke(sandboxKey, hashKey(liveParent).slice(0, 16), true)).status).toBe(404);
    expect((await me(liveParent)).status).toBe(200);
  });

  it("refuses a third-party application's token (403) and takes the console's", async () => {
    const ann = await newUser();
    const client = (await new OAuthClients(backend.store).create({ name: 'Third party', redirectUris: ['http://localhost:7000/cb'], public: true })).client;
    const grant = await tokens.approve(ann, client.id, [...FILE_API_SCOPES]);
    const thirdParty = (await tokens.issueImplicit({ userId: ann, clientId: client.id, grantId: grant.grantId }, [...FILE_API_SCOPES])).accessToken;
    const refused = await create(thirdParty, { name: 'outliving', scopes: ['user.read'] });
    expect([refused.status, refused.json.code]).toEqual([403, 'FORBIDDEN']);
    // It may still see and revoke keys (that never widens anything).
    expect((await list(thirdParty)).status).toBe(200);

    const consoleToken = (await consoleAccessToken({ store: backend.store, tokens }, ann)).accessToken;
    const made = await create(consoleToken, { name: 'from the console', scopes: ['task.read'] });
    expect(made.status).toBe(201);
    const beyond = await create(consoleToken, { name: 'google', scopes: ['cloud-platform'] });
    expect([beyond.status, Object.keys(beyond.json.errors)]).toEqual([422, ['scopes']]);
  });

  it(`holds at most MAX_API_KEYS_PER_USER live keys (${MAX} here); revoking one makes room`, async () => {
    const carol = await newUser();
    const parent = await keyOf(carol);
    const made: string[] = [];
    for (let i = 1; i < MAX; i++) made.push((await create(parent, { name: `k${i}`, scopes: ['user.read'] })).json.data.id);
    const over = await create(parent, { name: 'one too many', scopes: ['user.read'] });
    expect([over.status, Object.keys(over.json.errors)]).toEqual([422, ['api_keys']]);
    expect((await revoke(parent, made[0]!)).status).toBe(204);
    expect((await create(parent, { name: 'room again', scopes: ['user.read'] })).status).toBe(201);
  });
});

describe('the per-user index', () => {
  it('reindex puts keys made before it into their user’s list, and `list` still shows every key', async () => {
    const bob = await newUser();
    const { record } = await keys.create({ userId: bob, scopes: ['user.read'], name: 'old' });
    // A key as older versions wrote it: no per-user index.
    await backend.store.update({ pk: record.pk, sk: 'apikey' }, { remove: ['gsi2pk', 'gsi2sk'] });
    expect((await keys.allOf(bob)).map((k) => k.keyId)).not.toContain(record.keyId);
    expect(await keys.reindex()).toBe(1);
    expect((await keys.allOf(bob)).map((k) => k.keyId)).toContain(record.keyId);
    expect(await keys.reindex()).toBe(0);
    expect((await keys.list()).map((k) => k.keyId)).toContain(record.keyId);
  });
});
