/**
 * OAuth 2.0 against the whole platform (serverless-offline running serverless.yml, as `npm start`):
 * a standard client library (oauth4webapi) discovers the server and runs the authorization code flow
 * with PKCE while a real headless Chromium signs in and approves on the consent page; the official
 * `cloudconvert` SDK then works with the access token. Also the implicit grant in the browser, the
 * RFC's error for each misuse, and two users who see nothing of each other.
 *
 * The client's redirect URI is answered inside the browser (request interception), as a client app
 * would; authorization codes live OAUTH_CODE_SECONDS = 5 here, so the expiry test waits 6 s.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { bundledChromium } from '#lib/engines/chrome/unpacked.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { Accounts } from '#lib/access/auth/accounts.js';
import { ApiKeys } from '#lib/access/auth/keys.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import { cloudConvertClient } from '../support/cloudconvert.js';
import { e2eOutput } from '../support/platform-output.js';

const CHROMIUM_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** The client's redirect URI: nothing listens there; the browser answers it (see `open`). */
const REDIRECT = 'http://127.0.0.1:7/callback';
const CODE_SECONDS = 5;
const insecure = { [oauth.allowInsecureRequests]: true };

const dataDir = mkdtempSync(path.join(tmpdir(), 'oauth-e2e-'));
let platform: Emulator;
let browser: Browser;
let userDataDir: string;
let as: oauth.AuthorizationServer;
const clientIds: Record<'app' | 'implicitApp' | 'other', string> = { app: '', implicitApp: '', other: '' };
/**
 * Confidential clients: one with the secret the tool generates (`ocs_` and base64url: `_`, mostly `-`
 * too), one whose secret holds every character a strict client percent-encodes, and a space (sent as `+`).
 */
const CHOSEN_SECRET = 'dash-under_dot.tilde~ space+plus-_.~';
const confidential: Record<'generated' | 'chosen', { id: string; secret: string }> = { generated: { id: '', secret: '' }, chosen: { id: '', secret: '' } };
const ann = { email: 'ann@example.com', password: 'ann-password-1234', name: 'Ann' };
const bob = { email: 'bob@example.com', password: 'bob-password-1234', name: 'Bob' };
/** The user of the confidential clients (her authorized applications are hers alone). */
const cat = { email: 'cat@example.com', password: 'cat-password-1234', name: 'Cat' };
/** An API key of Ann's (her usage is charted on her account page). */
let annKey: string;

beforeAll(async () => {
  platform = await startEmulator({
    dataDir,
    output: e2eOutput,
    env: { LOG_LEVEL: 'warn', OAUTH_CODE_SECONDS: String(CODE_SECONDS) },
  });
  // Accounts and clients made as the command-line tools make them, on the platform's own table.
  const state = new DynamoStateStore(
    new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
    'api-platform-local-state',
  );
  const accounts = new Accounts(state, { username: 'local', email: 'local@example.com', credits: 1_000_000 });
  for (const u of [ann, bob, cat]) await accounts.create({ email: u.email, username: u.name, password: u.password });
  annKey = (await new ApiKeys(state).create({ scopes: ['task.read', 'task.write'], userId: (await accounts.resolve(ann.email))!.id })).key;
  const clients = new OAuthClients(state);
  clientIds.app = (await clients.create({ name: 'Converter app', redirectUris: [REDIRECT], public: true })).client.id;
  clientIds.implicitApp = (await clients.create({ name: 'Legacy widget', redirectUris: [REDIRECT], public: true, implicit: true })).client.id;
  clientIds.other = (await clients.create({ name: 'Ann only app', redirectUris: [REDIRECT], public: true })).client.id;
  const generated = await clients.create({ name: 'Server app', redirectUris: [REDIRECT] });
  confidential.generated = { id: generated.client.id, secret: generated.secret! };
  // A secret cannot be chosen through the tool: the record gets the chosen secret's hash, as the tool stores one.
  const chosen = (await clients.create({ name: 'Chosen-secret app', redirectUris: [REDIRECT] })).client;
  await state.put({ ...chosen, secretHash: createHash('sha256').update(CHOSEN_SECRET, 'utf8').digest('hex') });
  confidential.chosen = { id: chosen.id, secret: CHOSEN_SECRET };

  const issuer = new URL(platform.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));

  userDataDir = mkdtempSync(path.join(tmpdir(), 'oauth-e2e-browser-'));
  browser = await puppeteer.launch({ executablePath: (await bundledChromium()).executablePath, headless: true, userDataDir, args: CHROMIUM_FLAGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await platform?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A browser profile of its own (cookies), whose page answers the redirect URI and reaches nothing off this machine. */
async function open(context?: BrowserContext): Promise<{ page: Page; callbacks: string[] }> {
  const page = await (context ?? (await browser.createBrowserContext())).newPage();
  const callbacks: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith(REDIRECT)) {
      callbacks.push(url);
      void request.respond({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Client</title><p>Back at the client.</p>' });
    } else if (url.startsWith(platform.baseUrl)) {
      void request.continue();
    } else {
      void request.abort('internetdisconnected');
    }
  });
  return { page, callbacks };
}

interface Consent {
  user?: { email: string; password: string };
  decision?: 'allow' | 'deny';
  /** Scopes to clear on the consent page. */
  clear?: string[];
}

/** Opens the authorization URL, answers the consent page as a user would, and returns where the browser ended. */
async function consent(page: Page, url: URL, opts: Consent = {}): Promise<URL> {
  await page.goto(url.href, { waitUntil: 'load' });
  if (opts.user) {
    await page.type('#email', opts.user.email);
    await page.type('#password', opts.user.password);
  }
  for (const scope of opts.clear ?? []) await page.click(`input[name="scope_choice"][value="${scope}"]`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`button[value="${opts.decision ?? 'allow'}"]`)]);
  return new URL(page.url());
}

/** An authorization request of the code flow with PKCE, as oauth4webapi makes its parts. */
async function codeRequest(clientId: string, scope: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url, verifier, state, client: { client_id: clientId } satisfies oauth.Client };
}

async function exchange(request: Awaited<ReturnType<typeof codeRequest>>, callback: URL, verifier = request.verifier, auth = oauth.None()) {
  const params = oauth.validateAuthResponse(as, request.client, callback, request.state);
  const response = await oauth.authorizationCodeGrantRequest(as, request.client, auth, params, REDIRECT, verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, request.client, response);
}

/** The OAuth error a token-endpoint call ended with (a 401 with a challenge too, whose body says it). */
const oauthError = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    async (err: unknown) => {
      if (err instanceof oauth.ResponseBodyError) return err.error;
      if (err instanceof oauth.WWWAuthenticateChallengeError) return `${err.status} ${((await err.response.json()) as { error?: string }).error}`;
      return String(err);
    },
  );

/** The HTTP status an SDK call failed with (the SDK throws with the response as cause). */
const sdkStatus = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (err: { cause?: Response }) => err.cause?.status,
  );

/** GET /v2/jobs with a bearer token (the SDK has no job list): the status and the ids listed. */
async function listJobs(token: string): Promise<{ status: number; ids: string[] }> {
  const res = await fetch(`${platform.baseUrl}/v2/jobs`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data?: Array<{ id: string }> };
  return { status: res.status, ids: (body.data ?? []).map((j) => j.id) };
}

const smallJob = {
  tasks: {
    raw: { operation: 'import/raw', file: 'authorized by OAuth', filename: 'oauth.txt' },
    url: { operation: 'export/url', input: 'raw' },
  },
};

let annContext: BrowserContext;
let annTokens: oauth.TokenEndpointResponse;

describe('authorization code with PKCE through oauth4webapi and a real browser', () => {
  it('signs in and approves in the browser; the SDK with the access token runs a job and reads users.me()', async () => {
    annContext = await browser.createBrowserContext();
    const { page, callbacks } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read task.read task.write');
    await page.goto(request.url.href, { waitUntil: 'load' });
    expect(await page.title()).toBe('Authorize Converter app');
    const words = await page.$$eval('ul.scopes label', (labels) => labels.map((l) => l.textContent));
    expect(words).toEqual([
      'See your account: name, e-mail, remaining credits and usage',
      'See your jobs and tasks and download their results',
      'Create, cancel, retry and delete jobs and tasks (spending your credits)',
    ]);
    expect(await page.$$('script')).toHaveLength(0);
    const callback = await consent(page, request.url, { user: ann });
    expect(callbacks).toHaveLength(1);
    expect(callback.searchParams.get('state')).toBe(request.state);
    annTokens = await exchange(request, callback);
    expect(annTokens).toMatchObject({ token_type: 'bearer', scope: 'user.read task.read task.write' });
    expect(annTokens.refresh_token).toBeDefined();

    const cc = cloudConvertClient(annTokens.access_token, platform.baseUrl);
    const me = await cc.users.me();
    expect(me).toMatchObject({ email: 'ann@example.com', username: 'Ann' });
    const job = await cc.jobs.wait((await cc.jobs.create(smallJob as never)).id);
    expect(job.status).toBe('finished');
    const file = cc.jobs.getExportUrls(job)[0]!;
    expect(await (await fetch(file.url!)).text()).toBe('authorized by OAuth');
  });

  it('gives a token with only task.read a 403 on job creation', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'task.read');
    const tokens = await exchange(request, await consent(page, request.url));
    const cc = cloudConvertClient(tokens.access_token, platform.baseUrl);
    expect(await sdkStatus(cc.jobs.create(smallJob as never))).toBe(403);
    expect((await listJobs(tokens.access_token)).status).toBe(200);
  });

  it('grants only the scopes the user left ticked', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read task.write');
    const tokens = await exchange(request, await consent(page, request.url, { clear: ['task.write'] }));
    expect(tokens.scope).toBe('user.read');
    expect(await sdkStatus(cloudConvertClient(tokens.access_token, platform.baseUrl).jobs.create(smallJob as never))).toBe(403);
  });
});

describe('the RFC\'s errors', () => {
  it('shows an error page for an unregistered redirect URI and never goes there', async () => {
    const { page, callbacks } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read');
    request.url.searchParams.set('redirect_uri', 'http://127.0.0.1:7/elsewhere');
    const response = await page.goto(request.url.href, { waitUntil: 'load' });
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(`${platform.baseUrl}/oauth/authorize`)).toBe(true);
    expect(await page.$eval('p.error', (p) => p.textContent)).toContain('not one that Converter app registered');
    expect(callbacks).toEqual([]);
  });

  it('sends access_denied when the user declines', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read');
    const callback = await consent(page, request.url, { decision: 'deny' });
    expect(() => oauth.validateAuthResponse(as, request.client, callback, request.state)).toThrow(oauth.AuthorizationResponseError);
    expect(callback.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a reused code with invalid_grant, and the tokens it gave stop working', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read');
    const callback = await consent(page, request.url);
    const tokens = await exchange(request, callback);
    const cc = cloudConvertClient(tokens.access_token, platform.baseUrl);
    expect((await cc.users.me()).email).toBe('ann@example.com');
    expect(await oauthError(exchange(request, callback))).toBe('invalid_grant');
    expect(await sdkStatus(cc.users.me())).toBe(401);
  });

  it('refuses a wrong PKCE verifier with invalid_grant', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read');
    const callback = await consent(page, request.url);
    expect(await oauthError(exchange(request, callback, oauth.generateRandomCodeVerifier()))).toBe('invalid_grant');
  });

  it('refuses an expired code with invalid_grant', async () => {
    const { page } = await open(annContext);
    const request = await codeRequest(clientIds.app, 'user.read');
    const callback = await consent(page, request.url);
    await new Promise((r) => setTimeout(r, (CODE_SECONDS + 1) * 1000));
    expect(await oauthError(exchange(request, callback))).toBe('invalid_grant');
  });

  it('rotates refresh tokens, and a revoked refresh token gets invalid_grant', async () => {
    const client = { client_id: clientIds.app };
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), annTokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).not.toBe(annTokens.refresh_token);
    const cc = cloudConvertClient(refreshed.access_token, platform.baseUrl);
    expect((await cc.users.me()).email).toBe('ann@example.com');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure));
    const again = oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure);
    expect(await oauthError(again.then((res) => oauth.processRefreshTokenResponse(as, client, res)))).toBe('invalid_grant');
    expect(await sdkStatus(cc.users.me())).toBe(401);
  });
});

describe('confidential clients through oauth4webapi (client authentication as RFC 6749 §2.3.1 has it)', () => {
  const METHODS = { ClientSecretBasic: oauth.ClientSecretBasic, ClientSecretPost: oauth.ClientSecretPost };
  let context: BrowserContext | undefined;

  /** The code flow with PKCE, Cat approving in a browser profile of this block's own (signed in once). */
  async function approvedCode(clientId: string, scope: string) {
    const signIn = !context;
    context ??= await browser.createBrowserContext();
    const { page } = await open(context);
    const request = await codeRequest(clientId, scope);
    return { request, callback: await consent(page, request.url, signIn ? { user: cat } : {}) };
  }

  it('lists client_secret_basic, client_secret_post and none for the token and revocation endpoints', () => {
    const methods = ['client_secret_basic', 'client_secret_post', 'none'];
    expect([...(as.token_endpoint_auth_methods_supported ?? [])].sort()).toEqual(methods);
    expect([...(as.revocation_endpoint_auth_methods_supported ?? [])].sort()).toEqual(methods);
  });

  it('gives the secrets the characters a strict client percent-encodes', () => {
    expect(confidential.generated.secret).toMatch(/^ocs_[A-Za-z0-9_-]+$/);
    for (const c of ['-', '_', '.', '~', ' ', '+']) expect(CHOSEN_SECRET).toContain(c);
  });

  for (const [methodName, method] of Object.entries(METHODS)) {
    for (const kind of ['generated', 'chosen'] as const) {
      it(`${methodName}, ${kind} secret: code to token, the SDK works with it, refresh, then revocation`, async () => {
        const { id, secret } = confidential[kind];
        const { request, callback } = await approvedCode(id, 'user.read task.read');
        const tokens = await exchange(request, callback, request.verifier, method(secret));
        expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'user.read task.read' });
        expect((await cloudConvertClient(tokens.access_token, platform.baseUrl).users.me()).email).toBe(cat.email);

        const client = request.client;
        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, method(secret), tokens.refresh_token!, insecure),
        );
        const cc = cloudConvertClient(refreshed.access_token, platform.baseUrl);
        expect((await cc.users.me()).email).toBe(cat.email);

        await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, method(secret), refreshed.refresh_token!, insecure));
        expect(await sdkStatus(cc.users.me())).toBe(401);
      });
    }
  }

  it('refuses a wrong secret (and a missing one) with invalid_client, by either method', async () => {
    const { id, secret } = confidential.chosen;
    const refused = [];
    for (const auth of [oauth.ClientSecretBasic(`${secret}x`), oauth.ClientSecretPost(secret.slice(1)), oauth.None()]) {
      const { request, callback } = await approvedCode(id, 'user.read');
      refused.push(await oauthError(exchange(request, callback, request.verifier, auth)));
    }
    // A client that sent the Authorization header is answered 401 with a Basic challenge (RFC 6749 §5.2).
    expect(refused).toEqual(['401 invalid_client', 'invalid_client', 'invalid_client']);
    const revoked = oauth.revocationRequest(as, { client_id: id }, oauth.ClientSecretBasic(`${secret}x`), 'any-token', insecure);
    expect(await oauthError(revoked.then((res) => oauth.processRevocationResponse(res)))).toBe('401 invalid_client');
  });
});

describe('implicit grant in the browser', () => {
  it('puts a working access token in the fragment for a client registered for it', async () => {
    const { page, callbacks } = await open(annContext);
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ response_type: 'token', client_id: clientIds.implicitApp, redirect_uri: REDIRECT, scope: 'user.read', state: 'imp-1' }).toString();
    const callback = await consent(page, url);
    expect(callbacks).toHaveLength(1);
    expect(callback.search).toBe('');
    const fragment = new URLSearchParams(callback.hash.slice(1));
    expect(fragment.get('state')).toBe('imp-1');
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.has('refresh_token')).toBe(false);
    const fromPage = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('access_token'));
    expect(fromPage).toBe(fragment.get('access_token'));
    expect((await cloudConvertClient(fromPage!, platform.baseUrl).users.me()).email).toBe('ann@example.com');
  });

  it('sends unauthorized_client to a client not allowed the implicit grant', async () => {
    const { page } = await open(annContext);
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ response_type: 'token', client_id: clientIds.app, redirect_uri: REDIRECT, scope: 'user.read', state: 'imp-2' }).toString();
    await page.goto(url.href, { waitUntil: 'load' });
    const fragment = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect([fragment.get('error'), fragment.get('state')]).toEqual(['unauthorized_client', 'imp-2']);
    expect(new URL(page.url()).searchParams.has('access_token')).toBe(false);
  });
});

describe('two users', () => {
  it('keeps each user\'s authorized applications and jobs to themselves', async () => {
    // Ann also authorizes a second application and makes a job with it.
    const annPage = (await open(annContext)).page;
    const annRequest = await codeRequest(clientIds.other, 'task.read task.write');
    const annOther = await exchange(annRequest, await consent(annPage, annRequest.url));
    const annJob = await cloudConvertClient(annOther.access_token, platform.baseUrl).jobs.create(smallJob as never);

    // Bob, in a browser of his own, authorizes the converter app.
    const bobContext = await browser.createBrowserContext();
    const { page: bobPage } = await open(bobContext);
    const bobRequest = await codeRequest(clientIds.app, 'user.read task.read task.write');
    const bobTokens = await exchange(bobRequest, await consent(bobPage, bobRequest.url, { user: bob }));
    const bobCc = cloudConvertClient(bobTokens.access_token, platform.baseUrl);
    expect((await bobCc.users.me()).email).toBe('bob@example.com');
    expect(await sdkStatus(bobCc.jobs.get(annJob.id))).toBe(404);
    expect((await listJobs(bobTokens.access_token)).ids).not.toContain(annJob.id);
    expect((await listJobs(annOther.access_token)).ids).toContain(annJob.id);

    // Bob's account page lists his application only; Ann's lists both of hers.
    await bobPage.goto(`${platform.baseUrl}/account`, { waitUntil: 'load' });
    const bobApps = await bobPage.$$eval('tr[data-client-id] strong', (cells) => cells.map((c) => c.textContent));
    expect(bobApps).toEqual(['Converter app']);
    await annPage.goto(`${platform.baseUrl}/account`, { waitUntil: 'load' });
    const annApps = await annPage.$$eval('tr[data-client-id] strong', (cells) => cells.map((c) => c.textContent));
    expect(annApps.sort()).toEqual(['Ann only app', 'Converter app', 'Legacy widget']);

    // A bearer token opens no account page: it is a browser sign-in.
    const withToken = await fetch(`${platform.baseUrl}/account`, { headers: { authorization: `Bearer ${bobTokens.access_token}` } });
    expect(await withToken.text()).toContain('Sign in to your account');

    // Ann revokes the second application on her page; its token stops working, Bob's does not.
    await Promise.all([annPage.waitForNavigation({ waitUntil: 'load' }), annPage.click(`tr[data-client-id="${clientIds.other}"] button`)]);
    expect(await annPage.$$eval('tr[data-client-id] strong', (cells) => cells.map((c) => c.textContent).sort())).toEqual(['Converter app', 'Legacy widget']);
    expect((await listJobs(annOther.access_token)).status).toBe(401);
    expect((await listJobs(bobTokens.access_token)).status).toBe(200);
  });
});

describe('the account page', () => {
  it('charts the last 30 days of credits, one bar per day, today’s bar standing for what the user spent', async () => {
    // Ann spends 2 credits today: two PNGs converted to JPEG with her API key.
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } }).png().toBuffer();
    const cc = cloudConvertClient(annKey, platform.baseUrl);
    const job = await cc.jobs.wait(
      (
        await cc.jobs.create({
          tasks: {
            a: { operation: 'import/base64', file: png.toString('base64'), filename: 'a.png' },
            b: { operation: 'import/base64', file: png.toString('base64'), filename: 'b.png' },
            jpg: { operation: 'convert', input: ['a', 'b'], output_format: 'jpg' },
          },
        } as never)
      ).id,
    );
    expect(job.status).toBe('finished');
    expect(job.tasks.find((t) => t.name === 'jpg')?.credits).toBe(2);

    // In a browser profile of her own, signed in on the page's form.
    const { page } = await open();
    await page.goto(`${platform.baseUrl}/account`, { waitUntil: 'load' });
    await page.type('#email', ann.email);
    await page.type('#password', ann.password);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type="submit"]')]);
    const bars = await page.$$eval('svg rect.bar', (rects) => rects.map((r) => Number(r.getAttribute('height'))));
    expect(bars).toHaveLength(30);
    expect(bars.slice(0, 29).every((h) => h === 0)).toBe(true);
    expect(bars[29]).toBeGreaterThan(0);
    expect(await page.$eval('svg > title', (t) => t.textContent)).toBe('Credits per day');
    const barTitles = await page.$$eval('svg rect.bar title', (titles) => titles.map((t) => t.textContent));
    // Every task she ran today counts (the free imports too); the credits are the two conversions.
    expect(barTitles.at(-1)).toMatch(/: 2 credits, \d+ tasks$/);

    // The pixels: the chart as the browser drew it holds today's bar in the bar colour (#2563eb).
    const shot = await (await page.$('svg'))!.screenshot({ type: 'png' });
    const { data, info } = await sharp(shot).raw().toBuffer({ resolveWithObject: true });
    let barPixels = 0;
    let inked = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      if (Math.abs(r - 0x25) < 12 && Math.abs(g - 0x63) < 12 && Math.abs(b - 0xeb) < 12) barPixels++;
      if (r < 250 || g < 250 || b < 250) inked++;
    }
    expect(barPixels).toBeGreaterThan(100);
    expect(inked).toBeGreaterThan(barPixels);
  });
});
