/**
 * The OAuth 2.0 server, accounts and the account page in-process: the real route chains of
 * /oauth/authorize, /oauth/token, /oauth/revoke, /account and /v2 against dynalite, driven with the
 * requests a browser and a client would send (cookies and forms included).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { call } from '../support/lambda.js';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { OAuthClients, type ClientRecord } from '#lib/access/oauth/clients.js';

type Handler = Parameters<typeof call>[0];
const h: Record<'authorize' | 'token' | 'revoke' | 'account' | 'me' | 'meUpdate' | 'jobsList' | 'jobsCreate' | 'metadata' | 'authorizations' | 'authorizationRevoke', Handler> = {} as never;
let backend: Awaited<ReturnType<typeof startStateBackend>>;
let accounts: Accounts;
let clients: OAuthClients;
let publicClient: ClientRecord;
let implicitClient: ClientRecord;
let confidential: { client: ClientRecord; secret: string };
const ann = { email: 'ann@example.com', password: 'ann-password-123' };
const bob = { email: 'bob@example.com', password: 'bob-password-123' };
const REDIRECT = 'http://localhost:7000/callback';

beforeAll(async () => {
  backend = await startStateBackend();
  useLocalEnv({ dynamodb: backend.endpoint, table: backend.table });
  const load = async (path: string) => ((await import(path)) as { handler: Handler }).handler;
  [h.authorize, h.token, h.revoke, h.account, h.me, h.meUpdate, h.jobsList, h.jobsCreate, h.metadata, h.authorizations, h.authorizationRevoke] = await Promise.all([
    load('#functions/oauth/authorize.js'),
    load('#functions/oauth/token.js'),
    load('#functions/oauth/revoke.js'),
    load('#functions/account/page.js'),
    load('#functions/account/users-me.js'),
    load('#functions/account/users-me-update.js'),
    load('#functions/jobs/list.js'),
    load('#functions/jobs/create.js'),
    load('#functions/oauth/metadata.js'),
    load('#functions/account/authorizations-list.js'),
    load('#functions/account/authorizations-revoke.js'),
  ]);
  accounts = new Accounts(backend.store, { username: 'local', email: 'local@example.com', credits: 1_000_000 });
  clients = new OAuthClients(backend.store);
  await accounts.create({ ...ann, username: 'Ann' });
  await accounts.create({ ...bob, username: 'Bob' });
  publicClient = (await clients.create({ name: 'Public app', redirectUris: [REDIRECT, 'com.example.app:/cb'], public: true })).client;
  implicitClient = (await clients.create({ name: 'Old SPA', redirectUris: [REDIRECT], public: true, implicit: true })).client;
  const made = await clients.create({ name: 'Server app', redirectUris: ['https://app.example.com/cb'] });
  confidential = { client: made.client, secret: made.secret! };
}, 60_000);
afterAll(() => backend?.close());

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** A browser: keeps the session cookie between requests. */
class Browser {
  cookie = '';
  keep<R extends { headers: Record<string, string> }>(res: R): R {
    const set = res.headers['set-cookie'];
    if (set) this.cookie = set.split(';')[0]!;
    return res;
  }
  get(handler: Handler, path: string, query = '') {
    return call(handler, { path, query, headers: this.cookie ? { cookie: this.cookie } : {} }).then((r) => this.keep(r));
  }
  post(handler: Handler, path: string, form: Record<string, string | string[]>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) };
    return call(handler, { method: 'POST', path, headers, body: body.toString() }).then((r) => this.keep(r));
  }
}

const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
const hiddenOf = (page: string) => Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));

/** Opens the consent page and answers it; returns the redirect's URL (or the page when there is none). */
async function authorize(
  params: Record<string, string>,
  opts: { user?: { email: string; password: string }; decision?: 'allow' | 'deny'; scopes?: string[]; browser?: Browser } = {},
) {
  const browser = opts.browser ?? new Browser();
  const page = await browser.get(h.authorize, '/oauth/authorize', new URLSearchParams(params).toString());
  if (page.status !== 200) return { page, url: page.headers.location ? new URL(page.headers.location) : undefined };
  const form: Record<string, string | string[]> = { ...hiddenOf(page.text), decision: opts.decision ?? 'allow' };
  form.scope_choice = opts.scopes ?? (params.scope ?? '').split(' ').filter(Boolean);
  if (opts.user) Object.assign(form, opts.user);
  const res = await browser.post(h.authorize, '/oauth/authorize', form);
  return { page: res, url: res.headers.location ? new URL(res.headers.location) : undefined, browser };
}

function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return call(h.token, { method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
}

async function codeFlow(user = ann, scope = 'user.read task.read') {
  const { verifier, challenge } = pkce();
  const { url } = await authorize(
    { response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope, state: 's-1', code_challenge: challenge, code_challenge_method: 'S256' },
    { user },
  );
  const code = url!.searchParams.get('code')!;
  const exchange = () => tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: publicClient.id });
  return { url: url!, code, verifier, exchange };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const me = (token: string) => call(h.me, { path: '/v2/users/me', headers: bearer(token) });

describe('authorization code with PKCE', () => {
  it('shows the scopes in words, redirects back with a code and the state, and the code buys tokens the API takes', async () => {
    const browser = new Browser();
    const { verifier, challenge } = pkce();
    const params = { response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read task.read task.write', state: 'xyz', code_challenge: challenge, code_challenge_method: 'S256' };
    const page = await browser.get(h.authorize, '/oauth/authorize', new URLSearchParams(params).toString());
    expect(page.status).toBe(200);
    expect(page.text).toContain('Authorize Public app');
    expect(page.text).toContain('See your jobs and tasks');
    expect(page.headers['set-cookie']).toMatch(/^session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    // Ann leaves task.write out.
    const { url } = await authorize(params, { user: ann, scopes: ['user.read', 'task.read'], browser });
    expect(`${url!.origin}${url!.pathname}`).toBe(REDIRECT);
    expect(url!.searchParams.get('state')).toBe('xyz');
    const res = await tokenRequest({ grant_type: 'authorization_code', code: url!.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT, client_id: publicClient.id });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json).toMatchObject({ token_type: 'Bearer', scope: 'user.read task.read', expires_in: expect.any(Number) });
    expect(res.json.access_token).toMatch(/^oat_/);
    expect(res.json.refresh_token).toMatch(/^ort_/);
    const account = await me(res.json.access_token);
    expect(account.status).toBe(200);
    expect(account.json.data).toMatchObject({ email: 'ann@example.com', username: 'Ann' });
    // The scope left out is not granted.
    const create = await call(h.jobsCreate, { method: 'POST', path: '/v2/jobs', headers: { ...bearer(res.json.access_token), 'content-type': 'application/json' }, body: '{"tasks":{}}' });
    expect(create.status).toBe(403);
    expect(create.json).toMatchObject({ code: 'FORBIDDEN', message: 'This access token lacks the scope task.write.' });
  });

  it('signs the browser in once: the next consent needs no password', async () => {
    const first = await authorize({ response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }, { user: ann });
    const again = await first.browser!.get(h.authorize, '/oauth/authorize', new URLSearchParams({ response_type: 'code', client_id: publicClient.id, scope: 'user.read', code_challenge: pkce().challenge, code_challenge_method: 'S256', redirect_uri: REDIRECT }).toString());
    expect(again.text).toContain('Signed in as <strong>Ann</strong>');
    expect(again.text).not.toContain('type="password"');
  });

  it('answers an unknown client or an unregistered redirect URI with an error page, never a redirect', async () => {
    const { challenge } = pkce();
    const base = { response_type: 'code', scope: 'user.read', code_challenge: challenge, code_challenge_method: 'S256' };
    for (const params of [
      { ...base, client_id: 'f'.repeat(24), redirect_uri: REDIRECT },
      { ...base, client_id: publicClient.id, redirect_uri: 'http://localhost:7000/callback/other' },
      { ...base, client_id: publicClient.id, redirect_uri: 'http://localhost:7000/Callback' },
      { ...base, client_id: publicClient.id },
    ]) {
      const res = await call(h.authorize, { path: '/oauth/authorize', query: new URLSearchParams(params).toString() });
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
    }
  });

  it('redirects request errors to the client with the state: PKCE missing or plain, unknown scope, unknown response type', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ response_type: 'code', scope: 'user.read' }, 'invalid_request'],
      [{ response_type: 'code', scope: 'user.read', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ response_type: 'code', scope: 'user.read', code_challenge: 'a'.repeat(43) }, 'invalid_request'],
      [{ response_type: 'code', scope: 'user.read files.everything', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }, 'invalid_scope'],
      [{ response_type: 'id_token', scope: 'user.read' }, 'unsupported_response_type'],
    ];
    for (const [params, error] of cases) {
      const res = await call(h.authorize, { path: '/oauth/authorize', query: new URLSearchParams({ ...params, client_id: publicClient.id, redirect_uri: REDIRECT, state: 'st' }).toString() });
      expect(res.status).toBe(302);
      const url = new URL(res.headers.location!);
      expect([url.searchParams.get('error'), url.searchParams.get('state')]).toEqual([error, 'st']);
    }
  });

  it('sends access_denied when the user declines', async () => {
    const { url } = await authorize({ response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', state: 'no', code_challenge: pkce().challenge, code_challenge_method: 'S256' }, { decision: 'deny' });
    expect(url!.searchParams.get('error')).toBe('access_denied');
    expect(url!.searchParams.get('state')).toBe('no');
    expect(url!.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent post without the session\'s CSRF token, with a page', async () => {
    const browser = new Browser();
    const params = { response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', code_challenge: pkce().challenge, code_challenge_method: 'S256' };
    const page = await browser.get(h.authorize, '/oauth/authorize', new URLSearchParams(params).toString());
    for (const csrf of ['', 'forged', csrfOf(page.text) + 'x']) {
      const res = await browser.post(h.authorize, '/oauth/authorize', { ...hiddenOf(page.text), csrf, decision: 'allow', scope_choice: 'user.read', ...ann });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
    }
    // The right token from another browser's session does not work either.
    const other = new Browser();
    const res = await other.post(h.authorize, '/oauth/authorize', { ...hiddenOf(page.text), decision: 'allow', scope_choice: 'user.read', ...ann });
    expect(res.status).toBe(403);
  });

  it('shows the form again on a wrong password, without signing in', async () => {
    const { page, url } = await authorize({ response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }, { user: { email: ann.email, password: 'wrong-password-1' } });
    expect(url).toBeUndefined();
    expect(page.status).toBe(401);
    expect(page.text).toContain('The e-mail address or password is not right.');
    expect(page.text).not.toContain('wrong-password-1');
  });
});

describe('the token endpoint\'s errors', () => {
  it('refuses a reused code with invalid_grant and revokes the tokens it gave', async () => {
    const flow = await codeFlow();
    const first = await flow.exchange();
    expect(first.status).toBe(200);
    expect((await me(first.json.access_token)).status).toBe(200);
    const second = await flow.exchange();
    expect(second.status).toBe(400);
    expect(second.json.error).toBe('invalid_grant');
    const after = await me(first.json.access_token);
    expect(after.status).toBe(401);
    expect(after.json).toEqual({ message: 'Unauthenticated.', code: 'UNAUTHENTICATED' });
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: publicClient.id });
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('refuses a wrong code verifier with invalid_grant, and the code is spent', async () => {
    const flow = await codeFlow();
    const wrong = await tokenRequest({ grant_type: 'authorization_code', code: flow.code, code_verifier: pkce().verifier, redirect_uri: REDIRECT, client_id: publicClient.id });
    expect([wrong.status, wrong.json.error]).toEqual([400, 'invalid_grant']);
    expect((await flow.exchange()).json.error).toBe('invalid_grant');
  });

  it('refuses another redirect_uri with invalid_grant and a missing one with invalid_request', async () => {
    const flow = await codeFlow();
    const other = await tokenRequest({ grant_type: 'authorization_code', code: flow.code, code_verifier: flow.verifier, redirect_uri: 'com.example.app:/cb', client_id: publicClient.id });
    expect(other.json.error).toBe('invalid_grant');
    const flow2 = await codeFlow();
    const missing = await tokenRequest({ grant_type: 'authorization_code', code: flow2.code, code_verifier: flow2.verifier, client_id: publicClient.id });
    expect(missing.json.error).toBe('invalid_request');
  });

  it('names unsupported grant types, unknown clients and repeated parameters', async () => {
    const basic = `Basic ${Buffer.from(`${confidential.client.id}:${confidential.secret}`).toString('base64')}`;
    expect((await tokenRequest({ grant_type: 'password', username: 'ann', password: 'x' }, { authorization: basic })).json.error).toBe('unsupported_grant_type');
    expect((await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic })).json.error).toBe('unsupported_grant_type');
    expect((await tokenRequest({ grant_type: 'authorization_code', code: 'oac_x', client_id: 'f'.repeat(24), code_verifier: pkce().verifier })).json.error).toBe('invalid_client');
    const repeated = await call(h.token, { method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=a&refresh_token=b' });
    expect([repeated.status, repeated.json.error]).toEqual([400, 'invalid_request']);
    const json = await call(h.token, { method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([json.status, json.json.error]).toEqual([400, 'invalid_request']);
  });

  it('rotates refresh tokens, and a rotated-away one presented again revokes the family', async () => {
    const first = (await (await codeFlow()).exchange()).json;
    const rotated = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: publicClient.id, scope: 'user.read' });
    expect(rotated.status).toBe(200);
    expect(rotated.json.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.json.scope).toBe('user.read');
    expect((await me(rotated.json.access_token)).status).toBe(200);
    const widen = await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.json.refresh_token, client_id: publicClient.id, scope: 'task.write' });
    expect(widen.json.error).toBe('invalid_scope');
    const reuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: publicClient.id });
    expect(reuse.json.error).toBe('invalid_grant');
    expect((await me(rotated.json.access_token)).status).toBe(401);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.json.refresh_token, client_id: publicClient.id })).json.error).toBe('invalid_grant');
  });

  it('makes a confidential client authenticate with its secret', async () => {
    const { verifier, challenge } = pkce();
    const params = { response_type: 'code', client_id: confidential.client.id, scope: 'user.read', code_challenge: challenge, code_challenge_method: 'S256' };
    const { url } = await authorize(params, { user: ann });
    const code = url!.searchParams.get('code')!;
    const without = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: confidential.client.id });
    expect(without.json.error).toBe('invalid_client');
    const wrong = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier }, { authorization: `Basic ${Buffer.from(`${confidential.client.id}:nope`).toString('base64')}` });
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
    const { url: url2 } = await authorize({ ...params, code_challenge: pkce().challenge }, { user: ann });
    const basic = `Basic ${Buffer.from(`${confidential.client.id}:${confidential.secret}`).toString('base64')}`;
    const ok = await tokenRequest({ grant_type: 'authorization_code', code: url2!.searchParams.get('code')!, code_verifier: 'x'.repeat(43) }, { authorization: basic });
    expect(ok.json.error).toBe('invalid_grant'); // the verifier of another challenge
    const { verifier: v3, challenge: c3 } = pkce();
    const { url: url3 } = await authorize({ ...params, code_challenge: c3 }, { user: ann });
    const good = await tokenRequest({ grant_type: 'authorization_code', code: url3!.searchParams.get('code')!, code_verifier: v3 }, { authorization: basic });
    expect(good.status).toBe(200);
  });
});

describe('client authentication as RFC 6749 §2.3.1 has it (what oauth4webapi and openid-client send)', () => {
  /** application/x-www-form-urlencoded as the strict libraries write it: every byte but letters and digits percent-encoded. */
  const strict = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
  const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const code = async () => {
    const { verifier, challenge } = pkce();
    const params = { response_type: 'code', client_id: confidential.client.id, scope: 'user.read', code_challenge: challenge, code_challenge_method: 'S256' };
    const { url } = await authorize(params, { user: ann });
    return { code: url!.searchParams.get('code')!, code_verifier: verifier };
  };

  it('takes a Basic id and secret percent-encoded byte by byte (the secret has - and _ in it), and both raw', async () => {
    const { client, secret } = confidential;
    const encoded = await tokenRequest({ grant_type: 'authorization_code', ...(await code()) }, { authorization: basicOf(strict(client.id), strict(secret)) });
    expect([encoded.status, encoded.json.error]).toEqual([200, undefined]);
    const raw = await tokenRequest({ grant_type: 'authorization_code', ...(await code()) }, { authorization: basicOf(client.id, secret) });
    expect([raw.status, raw.json.error]).toEqual([200, undefined]);
    const wrong = await tokenRequest({ grant_type: 'authorization_code', ...(await code()) }, { authorization: basicOf(strict(client.id), strict(`${secret}x`)) });
    expect([wrong.status, wrong.json.error]).toEqual([401, 'invalid_client']);
  });

  it('takes client_secret in the form (client_secret_post), and refuses both methods at once', async () => {
    const { client, secret } = confidential;
    const posted = await tokenRequest({ grant_type: 'authorization_code', ...(await code()), client_id: client.id, client_secret: secret });
    expect([posted.status, posted.json.error]).toEqual([200, undefined]);
    const both = await tokenRequest({ grant_type: 'authorization_code', ...(await code()), client_secret: secret }, { authorization: basicOf(client.id, secret) });
    expect(both.json.error).toMatch(/^invalid_(request|client)$/);
  });
});

describe('revocation (RFC 7009)', () => {
  it('revokes a refresh token with its access tokens; unknown tokens are no error; another client cannot', async () => {
    const tokens = (await (await codeFlow()).exchange()).json;
    const revoke = (form: Record<string, string>) =>
      call(h.revoke, { method: 'POST', path: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    expect((await revoke({ token: tokens.refresh_token, client_id: implicitClient.id })).json.error).toBe('invalid_request');
    expect((await revoke({ token: tokens.refresh_token, client_id: publicClient.id, token_type_hint: 'id_token' })).json.error).toBe('unsupported_token_type');
    expect((await revoke({ token: tokens.refresh_token, client_id: publicClient.id, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await revoke({ token: 'ort_unknown', client_id: publicClient.id })).status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: publicClient.id });
    expect(refresh.json.error).toBe('invalid_grant');
  });
});

describe('implicit grant', () => {
  it('gives a client registered for it a token in the fragment, and others unauthorized_client', async () => {
    const { url } = await authorize({ response_type: 'token', client_id: implicitClient.id, redirect_uri: REDIRECT, scope: 'user.read', state: 'imp' }, { user: bob });
    const fragment = new URLSearchParams(url!.hash.slice(1));
    expect(url!.search).toBe('');
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('state')).toBe('imp');
    expect(fragment.has('refresh_token')).toBe(false);
    expect((await me(fragment.get('access_token')!)).json.data.email).toBe('bob@example.com');
    const refused = await call(h.authorize, { path: '/oauth/authorize', query: new URLSearchParams({ response_type: 'token', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', state: 'imp' }).toString() });
    const error = new URLSearchParams(new URL(refused.headers.location!).hash.slice(1));
    expect([error.get('error'), error.get('state')]).toEqual(['unauthorized_client', 'imp']);
  });
});

describe('the account page', () => {
  it('lists the applications the user authorized, and Revoke ends their tokens', async () => {
    const carol = { email: 'carol@example.com', password: 'carol-password-1' };
    await accounts.create({ ...carol, username: 'Carol' });
    const tokens = (await (await codeFlow(carol)).exchange()).json;
    const browser = new Browser();
    const signIn = await browser.get(h.account, '/account');
    expect(signIn.text).toContain('Sign in to your account');
    const signedIn = await browser.post(h.account, '/account', { csrf: csrfOf(signIn.text), action: 'sign-in', ...carol });
    expect([signedIn.status, signedIn.headers.location]).toEqual([303, '/account']);
    const page = await browser.get(h.account, '/account');
    expect(page.text).toContain('Public app');
    expect(page.text).toContain('See your account');
    expect(page.text).not.toContain('Old SPA');
    const revoked = await browser.post(h.account, '/account', { csrf: csrfOf(page.text), action: 'revoke', client_id: publicClient.id });
    expect(revoked.status).toBe(303);
    expect((await me(tokens.access_token)).status).toBe(401);
    expect((await browser.get(h.account, '/account')).text).toContain('You have not authorized any application.');
    // Sign-out ends the session.
    const out = await browser.post(h.account, '/account', { csrf: csrfOf(page.text), action: 'sign-out' });
    expect(out.headers['set-cookie']).toContain('Max-Age=0');
  });

  it('shows each user only their own applications', async () => {
    await codeFlow(ann);
    const browser = new Browser();
    const signIn = await browser.get(h.account, '/account');
    await browser.post(h.account, '/account', { csrf: csrfOf(signIn.text), action: 'sign-in', ...bob });
    const page = await browser.get(h.account, '/account');
    expect(page.text).toContain('Old SPA');
    expect(page.text).not.toContain('Public app');
  });
});

describe('GET and DELETE /v2/users/me/authorizations', () => {
  const list = (token: string) => call(h.authorizations, { path: '/v2/users/me/authorizations', headers: bearer(token) });
  const revokeApp = (token: string, clientId: string) =>
    call(h.authorizationRevoke, { method: 'DELETE', path: `/v2/users/me/authorizations/${clientId}`, pathParameters: { client_id: clientId }, headers: bearer(token) });

  it('lists only the caller\'s applications with their scopes, and revoking one ends its tokens, not the caller\'s', async () => {
    const dora = { email: 'dora@example.com', password: 'dora-password-1' };
    const eve = { email: 'eve@example.com', password: 'eve-password-12' };
    await accounts.create({ ...dora, username: 'Dora' });
    await accounts.create({ ...eve, username: 'Eve' });
    const app = (await (await codeFlow(dora, 'user.read task.read')).exchange()).json;
    // Dora's own credential for the API: a token of the confidential client with user.read and user.write.
    const { verifier, challenge } = pkce();
    const { url } = await authorize(
      { response_type: 'code', client_id: confidential.client.id, redirect_uri: 'https://app.example.com/cb', scope: 'user.read user.write', code_challenge: challenge, code_challenge_method: 'S256' },
      { user: dora },
    );
    const basic = `Basic ${Buffer.from(`${confidential.client.id}:${confidential.secret}`).toString('base64')}`;
    const own = (
      await tokenRequest(
        { grant_type: 'authorization_code', code: url!.searchParams.get('code')!, code_verifier: verifier, redirect_uri: 'https://app.example.com/cb' },
        { authorization: basic },
      )
    ).json.access_token as string;
    // Eve authorizes the public app too: never in Dora's list.
    const eveApp = (await (await codeFlow(eve)).exchange()).json;

    const listed = await list(own);
    expect(listed.status).toBe(200);
    const data = listed.json.data as Array<{ client_id: string; name: string; scopes: string[]; sandbox: boolean; created_at: string }>;
    expect(data.map((a) => a.name).sort()).toEqual(['Public app', 'Server app']);
    expect(data.find((a) => a.client_id === publicClient.id)).toMatchObject({ scopes: ['user.read', 'task.read'], sandbox: false, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/) });
    expect((await list(eveApp.access_token)).json.data.map((a: { name: string }) => a.name)).toEqual(['Public app']);

    // A token without user.write may read the list but not revoke.
    expect((await revokeApp(app.access_token, confidential.client.id)).status).toBe(403);
    expect((await me(app.access_token)).status).toBe(200);
    const revoked = await revokeApp(own, publicClient.id);
    expect(revoked.status).toBe(204);
    expect((await me(app.access_token)).status).toBe(401);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: app.refresh_token, client_id: publicClient.id })).status).toBe(400);
    // Eve's grant of the same app lives on, and Dora's list has only the other app left.
    expect((await me(eveApp.access_token)).status).toBe(200);
    expect((await list(own)).json.data.map((a: { name: string }) => a.name)).toEqual(['Server app']);
    // Gone once is gone: a second revocation, or one of an app never authorized, is a 404.
    expect((await revokeApp(own, publicClient.id)).status).toBe(404);
    expect((await revokeApp(own, implicitClient.id)).status).toBe(404);
    expect((await revokeApp(own, 'not-a-client')).status).toBe(422);
  });

  it('neither lists nor revokes the console\'s own clients, live or sandbox', async () => {
    const { consoleAccessToken, CONSOLE_CLIENT_ID, CONSOLE_SANDBOX_CLIENT_ID } = await import('#lib/web/console/token.js');
    const { tokenStore } = await import('#lib/wiring/auth.js');
    const tokens = tokenStore();
    const fay = { email: 'fay@example.com', password: 'fay-password-123' };
    const { user } = await accounts.create({ ...fay, username: 'Fay' });
    const live = await consoleAccessToken({ store: backend.store, tokens }, user.id);
    const sandbox = await consoleAccessToken({ store: backend.store, tokens }, user.id, true);
    expect((await list(live.accessToken)).json.data).toEqual([]);
    for (const id of [CONSOLE_CLIENT_ID, CONSOLE_SANDBOX_CLIENT_ID]) expect((await revokeApp(live.accessToken, id)).status).toBe(404);
    expect((await me(live.accessToken)).status).toBe(200);
    // The sandbox token is a sandbox credential: refused at a live base.
    expect((await me(sandbox.accessToken)).status).toBe(401);
  });
});

describe('accounts', () => {
  it('stops a disabled user\'s keys, tokens and sign-in', async () => {
    const dave = { email: 'dave@example.com', password: 'dave-password-1' };
    const { user } = await accounts.create({ ...dave, username: 'Dave' });
    const { key } = await new ApiKeys(backend.store).create({ scopes: ['user.read'], userId: user.id });
    const token = (await (await codeFlow(dave)).exchange()).json.access_token;
    expect((await me(key)).status).toBe(200);
    expect((await me(token)).json.data.id).toBe(user.id);
    await accounts.disable(user.id);
    expect((await me(key)).status).toBe(401);
    expect((await me(token)).status).toBe(401);
    const { page } = await authorize({ response_type: 'code', client_id: publicClient.id, redirect_uri: REDIRECT, scope: 'user.read', code_challenge: pkce().challenge, code_challenge_method: 'S256' }, { user: dave });
    expect(page.status).toBe(401);
  });

  it('keeps e-mail addresses unique when two creations race', async () => {
    const results = await Promise.allSettled([
      accounts.create({ email: 'Race@example.com', username: 'One', password: 'race-password-1' }),
      accounts.create({ email: 'race@EXAMPLE.com', username: 'Two', password: 'race-password-2' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await accounts.list()).filter((u) => u.email === 'race@example.com')).toHaveLength(1);
  });

  it('PATCH /v2/users/me changes name and e-mail, refusing bad or taken ones under their field', async () => {
    const erin = { email: 'erin@example.com', password: 'erin-password-1' };
    const { user } = await accounts.create({ ...erin, username: 'Erin' });
    const keys = new ApiKeys(backend.store);
    const write = (await keys.create({ scopes: ['user.read', 'user.write'], userId: user.id })).key;
    const read = (await keys.create({ scopes: ['user.read'], userId: user.id })).key;
    const patch = (key: string, body: unknown) =>
      call(h.meUpdate, { method: 'PATCH', path: '/v2/users/me', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await patch(write, { username: 'Erin E.', email: 'Erin.E@Example.com' });
    expect(ok.status).toBe(200);
    expect(ok.json.data).toMatchObject({ id: user.id, username: 'Erin E.', email: 'erin.e@example.com', links: { self: `http://localhost:4000/v2/users/${user.id}` } });
    expect((await me(write)).json.data.email).toBe('erin.e@example.com');
    const taken = await patch(write, { email: 'ann@example.com' });
    expect([taken.status, taken.json.code, taken.json.errors]).toEqual([422, 'INVALID_DATA', { email: ['has already been taken'] }]);
    expect((await patch(write, { email: 'not-an-address' })).json.errors.email).toBeDefined();
    expect((await patch(write, { username: '  ' })).json.errors.username).toBeDefined();
    expect((await patch(read, { username: 'x' })).status).toBe(403);
    // The old address is free again and the new one signs in.
    expect(await accounts.byEmail('erin@example.com')).toBeUndefined();
    expect((await accounts.authenticate('erin.e@example.com', erin.password))?.id).toBe(user.id);
  });
});

describe('metadata', () => {
  it('publishes the endpoints at the RFC 8414 address', async () => {
    const res = await call(h.metadata, { path: '/.well-known/oauth-authorization-server' });
    expect(res.json).toMatchObject({
      issuer: 'http://localhost:4000',
      authorization_endpoint: 'http://localhost:4000/oauth/authorize',
      token_endpoint: 'http://localhost:4000/oauth/token',
      code_challenge_methods_supported: ['S256'],
    });
  });
});

it('takes OAuth access tokens on the job list, each user seeing only their own', async () => {
  const token = (await (await codeFlow(bob)).exchange()).json.access_token;
  const res = await call(h.jobsList, { path: '/v2/jobs', headers: bearer(token) });
  expect(res.status).toBe(200);
  expect(res.headers['x-ratelimit-limit']).toBeDefined();
  expect(res.json.data).toEqual([]);
});
