/**
 * Enforced authentication of the Google-dialect APIs: the credential must be an API key or an OAuth
 * access token of this service holding one of the method's OAuth scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { TokenStore } from '#lib/access/oauth/tokens.js';
import type * as Limits from '#functions/labels/limits.js';
import type * as Api from '#functions/migration/api.js';

let backend: Awaited<ReturnType<typeof startStateBackend>>;
let limits: typeof Limits.handler;
let api: typeof Api.handler;
const keys: Record<string, string> = {};

beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table, GOOGLE_AUTH_MODE: 'enforced' });
  limits = (await import('#functions/labels/limits.js')).handler;
  api = (await import('#functions/migration/api.js')).handler;
  const store = new ApiKeys(backend.store);
  keys.labels = (await store.create({ scopes: ['https://www.googleapis.com/auth/drive.labels.readonly'] })).key;
  keys.adminLabels = (await store.create({ scopes: ['https://www.googleapis.com/auth/drive.admin.labels'] })).key;
  keys.cloud = (await store.create({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] })).key;
  keys.files = (await store.create({ scopes: ['task.read', 'task.write'] })).key;
  const revoked = await store.create({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] });
  await store.revoke(revoked.record.keyId);
  keys.revoked = revoked.key;
});
afterAll(() => backend?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const label = (headers: Record<string, string> = {}, query = 'name=limits%2Flabel') => call(limits, { path: '/v2beta/limits/label', query, headers });
const location = (headers: Record<string, string> = {}) => call(api, { path: '/v1/projects/p/locations/us-central1', headers });

describe('enforced authentication', () => {
  it('answers 401 UNAUTHENTICATED without a credential or with an unknown or revoked one', async () => {
    for (const headers of [{}, bearer('test-token'), bearer(keys.revoked!), { authorization: 'Basic abc' }]) {
      for (const res of [await label(headers), await location(headers)]) {
        expect(res.status).toBe(401);
        expect(res.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
        expect(res.json.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'googleapis.com' });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
      }
    }
  });

  it('answers 403 PERMISSION_DENIED for a key without the method\'s scope', async () => {
    for (const res of [await label(bearer(keys.cloud!)), await label(bearer(keys.files!)), await location(bearer(keys.labels!))]) {
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
      expect(res.json.error.details[0].reason).toBe('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    }
  });

  it('serves a key with one of the scopes, as a bearer token or as the key parameter', async () => {
    expect((await label(bearer(keys.labels!))).status).toBe(200);
    expect((await label(bearer(keys.adminLabels!))).status).toBe(200);
    expect((await label({}, `name=limits%2Flabel&key=${encodeURIComponent(keys.labels!)}`)).status).toBe(200);
    expect((await location(bearer(keys.cloud!))).status).toBe(200);
  });
});

describe('OAuth access tokens', () => {
  it('are taken like API keys, with their granted scopes, and refused once their grant is revoked', async () => {
    const tokens = new TokenStore(backend.store, { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86400 });
    const { client } = await new OAuthClients(backend.store).create({ name: 'Labels viewer', redirectUris: ['https://viewer.example/cb'] });
    const scopes = ['https://www.googleapis.com/auth/drive.labels.readonly'];
    const grant = await tokens.approve(1, client.id, scopes);
    const { accessToken } = await tokens.issueImplicit({ userId: 1, clientId: client.id, grantId: grant.grantId }, scopes);
    expect((await label(bearer(accessToken))).status).toBe(200);
    expect((await label({}, `name=limits%2Flabel&access_token=${encodeURIComponent(accessToken)}`)).status).toBe(200);
    expect((await location(bearer(accessToken))).status).toBe(403);
    await tokens.revokeGrant(1, client.id);
    const res = await label(bearer(accessToken));
    expect(res.status).toBe(401);
    expect(res.json.error.message).toContain('not an active API key or access token');
  });
});
