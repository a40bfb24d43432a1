/**
 * A refresh request the server refuses does not spend the refresh token (issue 25, finding 6): the
 * requested scope is checked BEFORE the token is rotated, so a client that asks for too much gets
 * `invalid_scope` and its token still refreshes (before the fix, the refused request had rotated it
 * away, and the next use looked like a stolen token's reuse and ended the whole authorization).
 *
 * In-process: the token endpoint's real route chain against dynalite; codes are issued as the consent
 * page issues them once a user approved (no browser needed here).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { OAuthClients, type ClientRecord } from '#lib/access/oauth/clients.js';
import type { OAuthServer } from '#lib/access/oauth/server.js';
import type { TokenStore } from '#lib/access/oauth/tokens.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';

type Handler = Parameters<typeof call>[0];
const REDIRECT = 'http://localhost:7000/callback';
let backend: Awaited<ReturnType<typeof startStateBackend>>;
let token: Handler;
let me: Handler;
let userId: number;
let app: ClientRecord;
let other: ClientRecord;
let platform: { oauthServer: () => OAuthServer; tokenStore: () => TokenStore };

beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table });
  token = ((await import('#functions/oauth/token.js')) as { handler: Handler }).handler;
  me = ((await import('#functions/account/users-me.js')) as { handler: Handler }).handler;
  platform = { oauthServer: (await import('#lib/wiring/oauth-server.js')).oauthServer, tokenStore: (await import('#lib/wiring/auth.js')).tokenStore };
  const accounts = new Accounts(backend.store, { username: 'local', email: 'local@example.com', credits: 1_000_000 });
  userId = (await accounts.create({ email: 'ann@example.com', username: 'Ann', password: 'ann-password-123' })).user.id;
  const clients = new OAuthClients(backend.store);
  app = (await clients.create({ name: 'App', redirectUris: [REDIRECT], public: true })).client;
  other = (await clients.create({ name: 'Other app', redirectUris: [REDIRECT], public: true })).client;
}, 60_000);
afterAll(() => backend?.close());

const tokenRequest = (form: Record<string, string>) =>
  call(token, { method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });

/** Ann approves `scope` for `client` and the client exchanges the code: its first tokens. */
async function tokensFor(client: ClientRecord, scope: string): Promise<{ access_token: string; refresh_token: string }> {
  const grant = await platform.tokenStore().approve(userId, client.id, scope.split(' '));
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT,
    scope,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  const location = await platform.oauthServer().issueCode(params, { userId, clientId: client.id, grantId: grant.grantId }, true);
  const code = new URL(location).searchParams.get('code')!;
  const res = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.id });
  expect(res.status).toBe(200);
  return res.json;
}

/** The refused request left the authorization whole: the access token works and the refresh token refreshes. */
async function stillUsable(tokens: { access_token: string; refresh_token: string }) {
  expect((await call(me, { path: '/v2/users/me', headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id });
  expect([refreshed.status, refreshed.json.error]).toEqual([200, undefined]);
  expect(refreshed.json.scope).toBe('user.read');
  // And the rotated one goes on.
  const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: app.id });
  expect(again.status).toBe(200);
}

describe('a refresh request asking for a scope it may not have', () => {
  it.each([
    ['a wider scope', 'user.read task.write'],
    ['a scope the service does not know', 'admin.everything'],
    // Ann granted task.write to the other app only.
    ['a scope the user granted to another client only', 'task.write'],
  ])('is invalid_scope for %s, and leaves the refresh token usable', async (_, scope) => {
    await tokensFor(other, 'task.write task.read');
    const tokens = await tokensFor(app, 'user.read');
    const refused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id, scope });
    expect([refused.status, refused.json.error]).toEqual([400, 'invalid_scope']);
    await stillUsable(tokens);
  });

  it('is refused for a malformed scope, and leaves the refresh token usable', async () => {
    const tokens = await tokensFor(app, 'user.read');
    const malformed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id, scope: 'user.read "quoted"\\' });
    expect(malformed.status).toBe(400);
    expect(['invalid_scope', 'invalid_request']).toContain(malformed.json.error);
    await stillUsable(tokens);
  });

  it('is invalid_grant when another client presents the token, which stays usable by its own client', async () => {
    const tokens = await tokensFor(app, 'user.read');
    const stolen = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other.id });
    expect([stolen.status, stolen.json.error]).toEqual([400, 'invalid_grant']);
    await stillUsable(tokens);
  });
});
