/**
 * Sign-in under attack (issue 25, finding 5): an attempt is counted atomically before its password is
 * checked, password checks run a few at a time per process (the rest are told at once to try again),
 * and the throttle is per account AND address with growing, capped delays: an attacker's burst slows
 * the attacker, never locks the account's owner out.
 *
 * In-process against dynalite through the account page's real route chain (each request from the
 * address the test names, as the gateway reports it), and then the acceptance against the whole
 * platform: 50 concurrent wrong sign-ins, no 5xx, each answered within 10 s, and the right password
 * still signs in afterwards.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Accounts } from '#lib/access/auth/accounts.js';
import { hashPassword } from '#lib/access/auth/passwords.js';
import { userKey } from '#lib/access/auth/users.js';
import { OAuthClients } from '#lib/access/oauth/clients.js';
import { LOCAL_CREDENTIALS } from '../../local/backends.js';
import { startEmulator, type Emulator } from '../../local/emulator.js';
import { DynamoStateStore } from '#lib/adapters/state/dynamodb.js';
import type { StateStore } from '#lib/adapters/state/port.js';
import { startStateBackend } from '../support/dynalite.js';
import { useLocalEnv } from '../support/env.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { e2eOutput } from '../support/platform-output.js';

type Handler = (event: ReturnType<typeof httpEvent>, context: ReturnType<typeof lambdaContext>) => Promise<{ statusCode?: number; headers?: Record<string, unknown>; body?: string }>;

const FREE_FAILURES = 3;
const MAX_DELAY_SECONDS = 2;
const CONCURRENT_CHECKS = 2;
/** What a password check costs here on top of its (cheap) hash, so that concurrent checks overlap. */
const CHECK_MS = 150;

const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** Password checks seen through Accounts.authenticate: how many, and the most at once. */
const checks = { count: 0, inFlight: 0, most: 0 };

describe('sign-in throttle, in-process', () => {
  let backend: Awaited<ReturnType<typeof startStateBackend>>;
  let page: Handler;
  let authorize: Handler;
  let accounts: Accounts;
  let n = 0;

  beforeAll(async () => {
    backend = await startStateBackend();
    useLocalEnv({
      dynamodb: backend.endpoint,
      table: backend.table,
      // Both the former fixed window and the throttle get small numbers, so that each test shows its point quickly.
      SIGN_IN_MAX_FAILURES: String(FREE_FAILURES),
      SIGN_IN_FREE_FAILURES: String(FREE_FAILURES),
      SIGN_IN_DELAY_SECONDS: '1',
      SIGN_IN_MAX_DELAY_SECONDS: String(MAX_DELAY_SECONDS),
      SIGN_IN_CONCURRENT_CHECKS: String(CONCURRENT_CHECKS),
    });
    page = ((await import('#functions/account/page.js')) as unknown as { handler: Handler }).handler;
    authorize = ((await import('#functions/oauth/authorize.js')) as unknown as { handler: Handler }).handler;
    accounts = new Accounts(backend.store, { username: 'local', email: 'local@example.com', credits: 1_000_000 });
    const authenticate = Accounts.prototype.authenticate;
    vi.spyOn(Accounts.prototype, 'authenticate').mockImplementation(async function (this: Accounts, email: string, password: string) {
      checks.count++;
      checks.most = Math.max(checks.most, ++checks.inFlight);
      try {
        await sleep(CHECK_MS);
        return await authenticate.call(this, email, password);
      } finally {
        checks.inFlight--;
      }
    });
  }, 60_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await backend?.close();
  });

  /** A fresh account whose hash is cheap (the cost is the spy's), so that tests measure the throttle. */
  async function account() {
    const user = { email: `user${++n}@example.com`, password: `right-password-${n}` };
    const made = await accounts.create({ ...user, username: `User ${n}` });
    await (backend.store as StateStore).update(userKey(made.user.id), { set: { passwordHash: await hashPassword(user.password, { N: 1024, r: 8, p: 1 }) } });
    return user;
  }

  async function send(req: Parameters<typeof httpEvent>[0], sourceIp: string, handler = page) {
    const event = httpEvent(req);
    event.requestContext.http.sourceIp = sourceIp;
    const res = await handler(event, lambdaContext());
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: res.statusCode ?? 200, headers, text: res.body ?? '' };
  }

  /** A browser at `sourceIp` opens the account page and signs in; the answer to the sign-in. */
  async function signIn(email: string, password: string, sourceIp: string) {
    const shown = await send({ path: '/account' }, sourceIp);
    const cookie = (shown.headers['set-cookie'] ?? '').split(';')[0]!;
    const body = new URLSearchParams({ csrf: csrfOf(shown.text), action: 'sign-in', email, password }).toString();
    return send({ method: 'POST', path: '/account', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }, sourceIp);
  }

  const reset = () => Object.assign(checks, { count: 0, inFlight: 0, most: 0 });

  it('counts an attempt before its password is checked: 20 parallel wrong attempts from one address get at most the free checks', async () => {
    const user = await account();
    reset();
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(user.email, 'wrong-password-0', '203.0.113.10')));
    const statuses = answers.map((a) => a.status);
    expect(checks.count).toBeLessThanOrEqual(FREE_FAILURES);
    expect(statuses.filter((s) => s === 401)).toHaveLength(checks.count);
    expect(statuses.every((s) => s === 401 || s === 429), statuses.join(' ')).toBe(true);
    for (const refused of answers.filter((a) => a.status === 429)) expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('bounds concurrent password checks: 12 parallel attempts from 12 addresses, the rest told at once to try again', async () => {
    const user = await account();
    reset();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(user.email, 'wrong-password-1', `198.51.100.${i + 1}`)));
    expect(checks.most).toBeLessThanOrEqual(CONCURRENT_CHECKS);
    const busy = answers.filter((a) => a.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    for (const b of busy) {
      expect(b.text).toMatch(/try again/i);
      expect(Number(b.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
  });

  it('lets the owner sign in from another address right after an attacker\'s burst', async () => {
    const user = await account();
    for (let i = 0; i < 12; i++) await signIn(user.email, `wrong-password-${i}`, '192.0.2.66');
    const owner = await signIn(user.email, user.password, '192.0.2.7');
    expect([owner.status, owner.headers.location]).toEqual([303, '/account']);
  });

  it('lets the owner sign in from the attacker\'s address once the (capped) delay has passed: no lockout', async () => {
    const user = await account();
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const answer = await signIn(user.email, `wrong-password-${i}`, '192.0.2.99');
      if (answer.status === 429) delays.push(Number(answer.headers['retry-after'] ?? 0));
    }
    // Delays grow, and never beyond the cap.
    expect(delays.length).toBeGreaterThan(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
    let owner = await signIn(user.email, user.password, '192.0.2.99');
    for (let tries = 0; owner.status === 429 && tries < 5; tries++) {
      await sleep(Math.min(Number(owner.headers['retry-after'] || 1), MAX_DELAY_SECONDS) * 1000 + 100);
      owner = await signIn(user.email, user.password, '192.0.2.99');
    }
    expect([owner.status, owner.headers.location]).toEqual([303, '/account']);
  });

  it('throttles the consent page\'s sign-in the same way: parallel wrong attempts, at most the free checks, the rest 429 with Retry-After', async () => {
    const user = await account();
    const client = (await new OAuthClients(backend.store).create({ name: 'App', redirectUris: ['http://localhost:7000/cb'], public: true })).client;
    const query = new URLSearchParams({ response_type: 'code', client_id: client.id, redirect_uri: 'http://localhost:7000/cb', scope: 'user.read', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    reset();
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const shown = await send({ path: '/oauth/authorize', query: query.toString() }, '203.0.113.20', authorize);
        const cookie = (shown.headers['set-cookie'] ?? '').split(';')[0]!;
        const hidden = Object.fromEntries([...shown.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
        const body = new URLSearchParams({ ...hidden, decision: 'allow', scope_choice: 'user.read', email: user.email, password: 'wrong-password-2' }).toString();
        return send({ method: 'POST', path: '/oauth/authorize', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }, '203.0.113.20', authorize);
      }),
    );
    expect(checks.count).toBeLessThanOrEqual(FREE_FAILURES);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(checks.count);
    const throttled = answers.filter((a) => a.status === 429);
    expect(throttled.length + checks.count).toBe(12);
    for (const t of throttled) expect(Number(t.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers a wrong password with 401 and a right one after it without any wait', async () => {
    const user = await account();
    expect((await signIn(user.email, 'wrong-password-x', '192.0.2.50')).status).toBe(401);
    expect((await signIn(user.email, user.password, '192.0.2.50')).status).toBe(303);
  });
});

/** One form POST from `localAddress` (a loopback address of its own: the gateway's source address). */
function post(url: URL, form: Record<string, string>, cookie: string, localAddress: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', localAddress, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('sign-in throttle, the acceptance against the whole platform', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sign-in-e2e-'));
  const owner = { email: 'owner@example.com', password: 'owner-password-1234' };
  let platform: Emulator;

  beforeAll(async () => {
    platform = await startEmulator({ dataDir, output: e2eOutput, env: { LOG_LEVEL: 'warn' } });
    const state = new DynamoStateStore(
      new DynamoDBClient({ region: 'us-east-1', endpoint: platform.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }),
      'api-platform-local-state',
    );
    // The real password hash (scrypt, N = 2^17): the cost an attacker makes the service pay.
    await new Accounts(state, { username: 'local', email: 'local@example.com', credits: 1_000 }).create({ ...owner, username: 'Owner' });
  }, 300_000);
  afterAll(async () => {
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A session and its CSRF token, as a browser gets them from the account page. */
  async function session(): Promise<{ cookie: string; csrf: string }> {
    const res = await fetch(new URL('/account', platform.baseUrl));
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: csrfOf(await res.text()) };
  }

  /** 50 concurrent wrong sign-ins (`addressOf` gives each its source address); each status and time. */
  async function burst(addressOf: (i: number) => string) {
    const sessions = await Promise.all(Array.from({ length: 50 }, () => session()));
    const url = new URL('/account', platform.baseUrl);
    return Promise.all(
      sessions.map(async (s, i) => {
        const started = performance.now();
        const res = await post(url, { csrf: s.csrf, action: 'sign-in', email: owner.email, password: `wrong-password-${i}` }, s.cookie, addressOf(i));
        return { status: res.status, ms: performance.now() - started };
      }),
    );
  }

  function report(label: string, answers: Array<{ status: number; ms: number }>) {
    const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    console.log(`${label}: statuses ${JSON.stringify(statuses)}, p50 ${Math.round(ms[Math.floor(ms.length / 2)]!)} ms, max ${Math.round(ms.at(-1)!)} ms`);
    expect(answers.filter((a) => a.status >= 500), JSON.stringify(statuses)).toEqual([]);
    expect(ms.at(-1)!).toBeLessThan(10_000);
  }

  /** The owner signs in from `address`, waiting out the throttle's delays (a lockout would never end within the bound). */
  async function ownerSignsIn(address: string) {
    const started = Date.now();
    for (;;) {
      const s = await session();
      const res = await post(new URL('/account', platform.baseUrl), { csrf: s.csrf, action: 'sign-in', ...owner }, s.cookie, address);
      if (res.status !== 429 || Date.now() - started > 60_000) return res;
      await sleep(Math.min(Number(res.headers['retry-after'] ?? 1), 10) * 1000);
    }
  }

  it('answers 50 concurrent wrong sign-ins from one address without a 5xx, each within 10 s; the owner then signs in', async () => {
    report('50 wrong sign-ins, one address', await burst(() => '127.0.0.1'));
    const res = await ownerSignsIn('127.0.0.1');
    expect([res.status, res.headers.location]).toEqual([303, '/account']);
  });

  it('answers 50 concurrent wrong sign-ins from 50 addresses without a 5xx, each within 10 s; the owner then signs in', async () => {
    report('50 wrong sign-ins, 50 addresses', await burst((i) => `127.0.0.${i + 2}`));
    const res = await ownerSignsIn('127.0.1.1');
    expect([res.status, res.headers.location]).toEqual([303, '/account']);
  });
});
