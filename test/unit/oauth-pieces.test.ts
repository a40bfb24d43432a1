/**
 * The OAuth server's pieces on their own: PKCE rules, redirect-URI registration and matching, the
 * order in which an authorization request is checked (error page before any redirect), scopes, client
 * credentials, CSRF tokens and session cookies, and escaping on the pages.
 */
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { checkAuthorizationRequest } from '#lib/access/oauth/authorization-request.js';
import { clientCredentials } from '#lib/access/oauth/client-auth.js';
import type { ClientRecord, OAuthClients } from '#lib/access/oauth/clients.js';
import { checkPkce } from '#lib/access/oauth/pkce.js';
import { checkRedirectUri, matchRedirectUri } from '#lib/access/oauth/redirect-uris.js';
import { parseScopeParam } from '#lib/access/oauth/scopes.js';
import type { Item, StateStore } from '#lib/adapters/state/port.js';
import { html } from '#lib/web/html.js';
import { cookieOf, csrfMatches, Sessions } from '#lib/web/session.js';

const S256 = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE at the authorization endpoint', () => {
  it('accepts S256 for every client and requires it of public clients', () => {
    expect(checkPkce({ code_challenge: S256, code_challenge_method: 'S256' }, { public: true })).toEqual({
      ok: true,
      challenge: { codeChallenge: S256, codeChallengeMethod: 'S256' },
    });
    expect(checkPkce({}, { public: false })).toEqual({ ok: true });
    expect(checkPkce({}, { public: true })).toMatchObject({ ok: false, message: expect.stringContaining('public client') });
  });

  it('refuses plain, a challenge without a method, unknown methods and malformed challenges', () => {
    for (const params of [
      { code_challenge: S256, code_challenge_method: 'plain' },
      { code_challenge: S256 },
      { code_challenge: S256, code_challenge_method: 'S512' },
      { code_challenge: S256.slice(1), code_challenge_method: 'S256' },
      { code_challenge: S256.replace('-', '+'), code_challenge_method: 'S256' },
      { code_challenge_method: 'S256' },
    ]) {
      expect(checkPkce(params, { public: false }).ok, JSON.stringify(params)).toBe(false);
    }
  });
});

describe('redirect URIs', () => {
  it('registers https, http on loopback only, and private-use schemes of native apps', () => {
    for (const ok of ['https://app.example.com/cb', 'http://localhost:8080/cb', 'http://127.0.0.1/cb', 'http://[::1]:9/cb', 'com.example.app:/oauth']) {
      expect(checkRedirectUri(ok)).toBe(ok);
    }
    for (const bad of ['http://app.example.com/cb', 'https://app.example.com/cb#frag', '/relative', 'javascript:alert(1)', 'data:text/html,x', 'myapp:/cb', 'https://a.example/with space']) {
      expect(() => checkRedirectUri(bad), bad).toThrow();
    }
  });

  it('matches exactly: no prefix, case, trailing slash or query changes', () => {
    const registered = ['https://app.example.com/cb', 'https://app.example.com/cb?x=1'];
    expect(matchRedirectUri(registered, 'https://app.example.com/cb')).toBe('https://app.example.com/cb');
    expect(matchRedirectUri(registered, 'https://app.example.com/cb?x=1')).toBe('https://app.example.com/cb?x=1');
    for (const other of ['https://app.example.com/cb/', 'https://app.example.com/cb/evil', 'https://APP.example.com/cb', 'https://app.example.com/cb?x=2', 'https://app.example.com/cb?x=1&y=2']) {
      expect(matchRedirectUri(registered, other), other).toBeUndefined();
    }
  });
});

describe('the authorization request', () => {
  const keys = { pk: 'c', sk: 'client', gsi1pk: 'oauthclients', gsi1sk: 'x' } as const;
  const client: ClientRecord = { ...keys, id: 'a'.repeat(24), name: 'App <b>', redirectUris: ['https://app.example.com/cb?keep=1'], public: true, implicit: false, createdAt: '2026-01-01T00:00:00Z' };
  const clients = { get: async (id: string) => (id === client.id ? client : undefined) } as unknown as OAuthClients;
  const check = (params: Record<string, string>) => checkAuthorizationRequest(new URLSearchParams(params), clients);
  const valid = { response_type: 'code', client_id: client.id, scope: 'user.read', state: 'st', code_challenge: S256, code_challenge_method: 'S256' };

  it('answers a bad client or redirect URI with a page even when everything else is wrong too', async () => {
    const cases: Array<Record<string, string>> = [{ response_type: 'nonsense' }, { client_id: 'b'.repeat(24) }, { client_id: client.id, redirect_uri: 'https://evil.example/cb' }];
    for (const params of cases) {
      expect((await check(params)).kind).toBe('page');
    }
    const twice = await checkAuthorizationRequest(new URLSearchParams(`client_id=${client.id}&client_id=${client.id}`), clients);
    expect(twice.kind).toBe('page');
  });

  it('sends other errors to the registered redirect URI, keeping its query, with the state', async () => {
    const res = await check({ ...valid, scope: 'user.read everything' });
    expect(res.kind).toBe('redirect');
    const url = new URL((res as { location: string }).location);
    expect(`${url.origin}${url.pathname}`).toBe('https://app.example.com/cb');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ keep: '1', error: 'invalid_scope', state: 'st' });
  });

  it('puts implicit-grant errors in the fragment', async () => {
    const res = await check({ response_type: 'token', client_id: client.id, scope: 'user.read', state: 'st' });
    const url = new URL((res as { location: string }).location);
    expect(url.searchParams.get('error')).toBeNull();
    expect(new URLSearchParams(url.hash.slice(1)).get('error')).toBe('unauthorized_client');
  });

  it('takes a valid request, with Google scopes in short form, and keeps its parameters for the form', async () => {
    const res = await check({ ...valid, scope: 'cloud-platform user.read user.read' });
    expect(res.kind).toBe('ok');
    const { request } = res as Extract<typeof res, { kind: 'ok' }>;
    expect(request.scopes).toEqual(['user.read', 'https://www.googleapis.com/auth/cloud-platform']);
    expect(request.redirectUri).toBe('https://app.example.com/cb?keep=1');
    expect(request.redirectUriInRequest).toBe(false);
    expect(request.params).toMatchObject({ client_id: client.id, state: 'st', code_challenge: S256 });
  });

  it('refuses a state that is not printable ASCII', async () => {
    const res = await check({ ...valid, state: 'a\u0000b' });
    const url = new URL((res as { location: string }).location);
    expect([url.searchParams.get('error'), url.searchParams.get('state')]).toEqual(['invalid_request', null]);
  });
});

describe('scopes', () => {
  it('lists unknown names and accepts no empty value as a scope', () => {
    expect(parseScopeParam('task.read  task.write')).toEqual({ ok: true, scopes: ['task.read', 'task.write'] });
    expect(parseScopeParam('task.read admin')).toEqual({ ok: false, unknown: ['admin'] });
    expect(parseScopeParam(undefined)).toEqual({ ok: true, scopes: [] });
  });
});

describe('client credentials', () => {
  const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

  it('reads HTTP Basic (form-urlencoded parts) or the form, never both', () => {
    expect(clientCredentials(basic('app', 'a%2Bb+c'), new URLSearchParams())).toEqual({ ok: true, clientId: 'app', clientSecret: 'a+b c', basic: true });
    expect(clientCredentials({}, new URLSearchParams('client_id=app&client_secret=s'))).toEqual({ ok: true, clientId: 'app', clientSecret: 's', basic: false });
    expect(clientCredentials({}, new URLSearchParams('client_id=app'))).toEqual({ ok: true, clientId: 'app', clientSecret: undefined, basic: false });
    expect(clientCredentials(basic('app', 's'), new URLSearchParams('client_secret=s')).ok).toBe(false);
    expect(clientCredentials(basic('app', 's'), new URLSearchParams('client_id=other')).ok).toBe(false);
    expect(clientCredentials({ authorization: 'Basic !!!' }, new URLSearchParams()).ok).toBe(false);
    expect(clientCredentials({}, new URLSearchParams()).ok).toBe(false);
  });

  it('decodes Basic credentials as oauth4webapi encodes them: every byte but letters and digits escaped, space as +', async () => {
    const secret = 'ocs_a-b.c~d e+f*(g)!\'h%é:';
    const headers = new Headers();
    await oauth.ClientSecretBasic(secret)({ issuer: 'http://as' }, { client_id: 'app id:1' }, new URLSearchParams(), headers);
    const sent = Buffer.from(headers.get('authorization')!.slice(6), 'base64').toString();
    // What the library sent: - _ . ~ escaped (the issue's %2D and %5F), space as +, + as %2B.
    expect(sent).toBe('app+id%3A1:ocs%5Fa%2Db%2Ec%7Ed+e%2Bf%2A%28g%29%21%27h%25%C3%A9%3A');
    expect(clientCredentials({ authorization: headers.get('authorization')! }, new URLSearchParams())).toEqual({ ok: true, clientId: 'app id:1', clientSecret: secret, basic: true });
    // The same secret sent raw (a client that does not encode) reads the same, but for + (a space in the form encoding).
    expect(clientCredentials(basic('app', 'ocs_a-b.c~d'), new URLSearchParams())).toMatchObject({ clientSecret: 'ocs_a-b.c~d' });
    expect(clientCredentials(basic('app', 'a+b%20c'), new URLSearchParams())).toMatchObject({ clientSecret: 'a b c' });
    expect(clientCredentials(basic('app', 'bad%E9'), new URLSearchParams())).toEqual({ ok: false, message: 'the Basic credentials are malformed' });
  });
});

describe('CSRF tokens and session cookies', () => {
  function memoryStore(): StateStore {
    const items = new Map<string, Item>();
    const key = (k: { pk: string; sk: string }) => `${k.pk}|${k.sk}`;
    return {
      get: async (k) => items.get(key(k)) as never,
      put: async (item) => void items.set(key(item), item),
      delete: async (k) => {
        const old = items.get(key(k));
        items.delete(key(k));
        return old as never;
      },
    } as Partial<StateStore> as StateStore;
  }

  it('match only the session\'s own token', () => {
    expect(csrfMatches({ csrf: 'abc' }, 'abc')).toBe(true);
    for (const presented of ['abd', 'ab', 'abcd', '', null, undefined]) expect(csrfMatches({ csrf: 'abc' }, presented)).toBe(false);
    expect(csrfMatches(undefined, 'abc')).toBe(false);
  });

  it('sets HttpOnly, SameSite=Lax cookies, Secure and __Host- over https, and a new id on sign-in', async () => {
    const sessions = new Sessions(memoryStore(), 3600);
    const http = await sessions.ensure({ baseUrl: 'http://localhost:4000', headers: {} });
    expect(http.setCookie).toMatch(/^session=[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const https = await sessions.ensure({ baseUrl: 'https://api.example.com', headers: {} });
    expect(https.setCookie).toMatch(/^__Host-session=[\w-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
    const req = { baseUrl: 'https://api.example.com', headers: { cookie: `other=1; ${https.setCookie!.split(';')[0]}` } };
    expect((await sessions.load(req))?.csrf).toBe(https.record.csrf);
    const signedIn = await sessions.signIn(req, 7);
    expect(cookieOf({ headers: { cookie: signedIn.setCookie!.split(';')[0]! } }, '__Host-session')).not.toBe(cookieOf(req, '__Host-session'));
    expect(signedIn.record.csrf).not.toBe(https.record.csrf);
    expect(await sessions.load(req)).toBeUndefined();
  });
});

describe('pages', () => {
  it('escape every value', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
    expect(html`<ul>${['<a>', html`<b>ok</b>`]}</ul>`.value).toBe('<ul>&lt;a&gt;<b>ok</b></ul>');
  });
});
