/**
 * The guarded client against real local HTTP servers (loopback, free ports). Refusals are proven on
 * the server side: a refused target sees neither a request nor a TCP connection. DNS answers for the
 * `.test` names are faked (node:dns as the client sees it) to play rebinding attacks.
 */
import { createHash } from 'node:crypto';
import type * as Dns from 'node:dns';
import http from 'node:http';
import { createServer as createTcpServer, isIP, type Server as TcpServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertOk,
  checkUrlResolved,
  createGuardedAgents,
  FetchFailedError,
  ForbiddenAddressError,
  guardedFetch,
  type GuardedResponse,
} from '#lib/adapters/net/guarded-fetch.js';

/** name → queue of answers; the last answer repeats. Names not listed resolve for real. */
const fakeDns = vi.hoisted(() => ({ answers: new Map<string, string[][]>(), lookups: new Map<string, number>() }));

vi.mock('node:dns', async (importOriginal) => {
  const actual = await importOriginal<typeof Dns & { default: typeof Dns }>();
  const lookup = (hostname: string, options: any, callback: any) => {
    const queue = fakeDns.answers.get(hostname);
    if (!queue) return actual.lookup(hostname, options, callback);
    fakeDns.lookups.set(hostname, (fakeDns.lookups.get(hostname) ?? 0) + 1);
    const answer = (queue.length > 1 ? queue.shift() : queue[0])!;
    const result = answer.map((address) => ({ address, family: isIP(address) }));
    process.nextTick(() => (options.all ? callback(null, result) : callback(null, result[0]!.address, result[0]!.family)));
  };
  return { ...actual, default: { ...actual.default, lookup }, lookup };
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

interface TestServer {
  port: number;
  origin: string;
  requests: Seen[];
  connections: number;
  close(): Promise<void>;
}

const servers: TestServer[] = [];

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    state.requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    handler(req, res);
  });
  const state: TestServer = {
    port: 0,
    origin: '',
    requests: [],
    connections: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as { port: number }).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  servers.push(state);
  return state;
}

async function text(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<FetchFailedError> {
  try {
    await promise;
  } catch (err) {
    return err as FetchFailedError;
  }
  throw new Error('expected a rejection');
}

const loopback = { allowLoopback: true };

afterEach(() => {
  fakeDns.answers.clear();
  fakeDns.lookups.clear();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('address checks on the dialled address', () => {
  let target: TestServer;
  beforeAll(async () => {
    target = await serve((_req, res) => res.end('secret internal data'));
  });

  it('refuses loopback without allowLoopback, and the server sees nothing', async () => {
    for (const host of ['127.0.0.1', 'localhost', '0x7f.1', '2130706433', '[::ffff:127.0.0.1]']) {
      const err = await rejection(guardedFetch(`http://${host}:${target.port}/`));
      expect(err, host).toBeInstanceOf(ForbiddenAddressError);
      expect(err.retryable).toBe(false);
    }
    expect(target.requests).toHaveLength(0);
    expect(target.connections).toBe(0);
  });

  it('allows it with allowLoopback', async () => {
    const res = await guardedFetch(`${target.origin}/hello`, {}, loopback);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${target.origin}/hello`);
    expect(res.redirects).toEqual([]);
    expect(await text(res.body)).toBe('secret internal data');
    expect(target.requests.map((r) => r.url)).toEqual(['/hello']);
  });

  it('refuses a name whose DNS answer is loopback, checked at connection time', async () => {
    const before = target.connections;
    fakeDns.answers.set('internal.test', [['127.0.0.1']]);
    const err = await rejection(guardedFetch(`http://internal.test:${target.port}/`));
    expect(err).toBeInstanceOf(ForbiddenAddressError);
    expect(err.message).toBe('Refusing to connect to "internal.test" (resolves to 127.0.0.1): a loopback address.');
    expect(target.connections).toBe(before);
  });

  it('refuses a name when any one of its addresses is forbidden', async () => {
    const before = target.connections;
    fakeDns.answers.set('mixed.test', [['93.184.215.14', '127.0.0.1']]);
    const err = await rejection(guardedFetch(`http://mixed.test:${target.port}/`));
    expect(err).toMatchObject({ blockReason: 'loopback', address: '127.0.0.1' });
    expect(target.connections).toBe(before);
  });

  it('defeats DNS rebinding: a check that passed earlier does not let the connection through', async () => {
    const before = target.connections;
    fakeDns.answers.set('rebind.test', [['93.184.215.14'], ['127.0.0.1']]);
    const url = `http://rebind.test:${target.port}/`;
    await expect(checkUrlResolved(url)).resolves.toMatchObject({ addresses: ['93.184.215.14'] });
    const err = await rejection(guardedFetch(url));
    expect(err).toMatchObject({ failure: 'FORBIDDEN_ADDRESS', address: '127.0.0.1' });
    expect(fakeDns.lookups.get('rebind.test')).toBe(2);
    expect(target.connections).toBe(before);
  });

  it('guards the agents handed to SDKs the same way', async () => {
    const get = (url: string, agent: http.Agent) =>
      new Promise<number>((resolve, reject) => {
        http.get(url, { agent }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).on('error', reject);
      });
    const before = { requests: target.requests.length, connections: target.connections };
    const strict = createGuardedAgents();
    await expect(get(`${target.origin}/sdk`, strict.httpAgent)).rejects.toBeInstanceOf(ForbiddenAddressError);
    fakeDns.answers.set('sdk-endpoint.test', [['127.0.0.1']]);
    await expect(get(`http://sdk-endpoint.test:${target.port}/sdk`, strict.httpAgent)).rejects.toMatchObject({
      blockReason: 'loopback',
    });
    expect(target.requests.length).toBe(before.requests);
    expect(target.connections).toBe(before.connections);

    const relaxed = createGuardedAgents({ allowHosts: [`127.0.0.1:${target.port}`] });
    await expect(get(`${target.origin}/sdk`, relaxed.httpAgent)).resolves.toBe(200);
    relaxed.httpAgent.destroy();
  });
});

describe('redirects', () => {
  let forbidden: TestServer;
  let entry: TestServer;
  let other: TestServer;

  beforeAll(async () => {
    forbidden = await serve((_req, res) => res.end('you should not see this'));
    other = await serve(async (req, res) => {
      const body = await readBody(req);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString() }));
    });
    entry = await serve(async (req, res) => {
      const url = new URL(req.url!, 'http://x');
      const to = url.searchParams.get('to');
      const status = Number(url.searchParams.get('status') ?? 302);
      if (url.pathname === '/redirect' && to !== null) {
        await readBody(req);
        res.writeHead(status, { location: to }).end();
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
      } else {
        const body = await readBody(req);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString() }));
      }
    });
  });

  const via = (to: string, status = 302) => `${entry.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
  const json = async (res: GuardedResponse) => JSON.parse(await text(res.body)) as Seen & { body: string };

  it('re-checks every hop: an allowed host redirecting to a forbidden address fails, and the target sees nothing', async () => {
    const policy = { allowHosts: [`127.0.0.1:${entry.port}`] };
    for (const to of [
      `http://127.0.0.1:${forbidden.port}/`,
      `http://0x7f.0.0.1:${forbidden.port}/`,
      `http://[::ffff:127.0.0.1]:${forbidden.port}/`,
      `http://localhost:${forbidden.port}/`,
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://metadata.google.internal/computeMetadata/v1/',
    ]) {
      const err = await rejection(guardedFetch(via(to), {}, policy));
      expect(err, to).toBeInstanceOf(ForbiddenAddressError);
    }
    expect(forbidden.requests).toHaveLength(0);
    expect(forbidden.connections).toBe(0);
  });

  it('re-checks DNS on every hop', async () => {
    fakeDns.answers.set('hop.test', [['127.0.0.1']]);
    const err = await rejection(guardedFetch(via(`http://hop.test:${forbidden.port}/`), {}, { allowHosts: [`127.0.0.1:${entry.port}`] }));
    expect(err).toMatchObject({ failure: 'FORBIDDEN_ADDRESS', host: 'hop.test', address: '127.0.0.1' });
    expect(forbidden.connections).toBe(0);
  });

  it('refuses a redirect to a non-HTTP scheme', async () => {
    const err = await rejection(guardedFetch(via('file:///etc/passwd'), {}, loopback));
    expect(err).toMatchObject({ failure: 'UNSUPPORTED_SCHEME', retryable: false });
  });

  it('follows up to maxRedirects, then fails', async () => {
    const before = entry.requests.length;
    const err = await rejection(guardedFetch(`${entry.origin}/loop`, { maxRedirects: 3 }, loopback));
    expect(err).toMatchObject({ failure: 'TOO_MANY_REDIRECTS', retryable: false });
    expect(entry.requests.length - before).toBe(4);
    const ok = await guardedFetch(via(`${other.origin}/final`), { maxRedirects: 1 }, loopback);
    expect(ok.redirects).toEqual([`${other.origin}/final`]);
    expect(ok.url).toBe(`${other.origin}/final`);
    await text(ok.body);
  });

  it('303 turns a POST into a GET without body or body headers', async () => {
    const res = await guardedFetch(
      via(`${other.origin}/result`, 303),
      { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-keep': 'yes' } },
      loopback,
    );
    const seen = await json(res);
    expect(seen.method).toBe('GET');
    expect(seen.body).toBe('');
    expect(seen.headers['content-type']).toBeUndefined();
    expect(seen.headers['content-length']).toBeUndefined();
    expect(seen.headers['x-keep']).toBe('yes');
  });

  it('302 turns a POST into a GET; 301 keeps a PUT and its body', async () => {
    const post = await json(await guardedFetch(via(`${other.origin}/a`, 302), { method: 'POST', body: 'x' }, loopback));
    expect(post).toMatchObject({ method: 'GET', body: '' });
    const put = await json(await guardedFetch(via(`${other.origin}/b`, 301), { method: 'PUT', body: 'payload' }, loopback));
    expect(put).toMatchObject({ method: 'PUT', body: 'payload' });
  });

  it('307/308 replay the method and a buffered body, but refuse to replay a stream', async () => {
    for (const status of [307, 308]) {
      const res = await guardedFetch(via(`${other.origin}/c`, status), { method: 'POST', body: Buffer.from('again') }, loopback);
      expect(await json(res)).toMatchObject({ method: 'POST', body: 'again' });
    }
    const err = await rejection(
      guardedFetch(via(`${other.origin}/d`, 307), { method: 'POST', body: Readable.from([Buffer.from('once')]) }, loopback),
    );
    expect(err).toMatchObject({ failure: 'BODY_NOT_REPLAYABLE', retryable: false });
  });

  it('drops Authorization, cookies and secret headers on a cross-origin redirect, keeps them same-origin', async () => {
    const headers = { authorization: 'Bearer top-secret', cookie: 'session=1', 'x-api-key': 'k', 'x-trace': 't' };
    const cross = await json(await guardedFetch(via(`${other.origin}/landing`), { headers }, loopback));
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers.cookie).toBeUndefined();
    expect(cross.headers['x-api-key']).toBeUndefined();
    expect(cross.headers['x-trace']).toBe('t');

    const same = await json(await guardedFetch(via('/landing'), { headers }, loopback));
    expect(same.url).toBe('/landing');
    expect(same.headers.authorization).toBe('Bearer top-secret');
    expect(same.headers['x-api-key']).toBe('k');

    const custom = await json(
      await guardedFetch(via(`${other.origin}/x`), { headers: { 'x-signed': 'v' }, sensitiveHeaders: ['X-Signed'] }, loopback),
    );
    expect(custom.headers['x-signed']).toBeUndefined();
  });

  it('sends a signature header (X-Sig) to the origin it was given for, not to another a redirect names', async () => {
    const headers = { 'x-sig': 'hmac-0123456789abcdef', 'x-trace': 't' };
    expect((await json(await guardedFetch(`${other.origin}/direct`, { headers }, loopback))).headers['x-sig']).toBe('hmac-0123456789abcdef');
    expect((await json(await guardedFetch(via('/landing'), { headers }, loopback))).headers['x-sig']).toBe('hmac-0123456789abcdef');
    const cross = await json(await guardedFetch(via(`${other.origin}/landing`), { headers }, loopback));
    expect(cross.headers['x-sig']).toBeUndefined();
    expect(cross.headers['x-trace']).toBe('t');
  });

  it('sends URL userinfo as Basic auth to its own origin only, and never echoes it', async () => {
    const withUser = (origin: string, path: string) => origin.replace('http://', 'http://alice:s3cr%40t@') + path;
    const direct = await json(await guardedFetch(withUser(entry.origin, '/whoami'), {}, loopback));
    expect(direct.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
    const res = await guardedFetch(withUser(entry.origin, `/redirect?to=${encodeURIComponent(`${other.origin}/next`)}`), {}, loopback);
    expect(res.url).not.toContain('alice');
    expect((await json(res)).headers.authorization).toBeUndefined();

    const err = await rejection(guardedFetch(withUser(`http://127.0.0.1:${forbidden.port}`, '/p?token=sekret')));
    expect(err.message).not.toMatch(/alice|s3cr|sekret|token/);
    expect(err.message).toContain('127.0.0.1');
  });
});

describe('streaming', () => {
  it('streams a 200 MB response without buffering it', async () => {
    const total = 200 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': total, 'content-type': 'application/octet-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    let received = 0;
    let chunks = 0;
    const res = await guardedFetch(`${server.origin}/big`, {}, loopback);
    expect(res.headers.get('content-length')).toBe(String(total));
    for await (const part of res.body) {
      received += (part as Buffer).length;
      // A reader much slower than the socket: backpressure must leave the rest with the server.
      if (++chunks % 4 === 0) await sleep(1);
      if (chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }
    expect(received).toBe(total);
    console.log(`200 MB streamed in ${chunks} chunks; peak RSS growth ${((peak - before) / 2 ** 20).toFixed(1)} MB`);
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);

  it('PUTs a stream body (chunked, or with a given content-length)', async () => {
    const server = await serve(async (req, res) => {
      const hash = createHash('sha256');
      let length = 0;
      for await (const part of req) {
        hash.update(part as Buffer);
        length += (part as Buffer).length;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, length, sha256: hash.digest('hex'), headers: req.headers }));
    });
    const parts = Array.from({ length: 80 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const expected = createHash('sha256').update(Buffer.concat(parts)).digest('hex');
    const size = parts.length * 64 * 1024;

    const chunked = await guardedFetch(`${server.origin}/upload`, { method: 'put', body: Readable.from(parts) }, loopback);
    const seen = JSON.parse(await text(chunked.body));
    expect(seen).toMatchObject({ method: 'PUT', length: size, sha256: expected });
    expect(seen.headers['transfer-encoding']).toBe('chunked');

    const sized = await guardedFetch(
      `${server.origin}/upload`,
      { method: 'PUT', body: Readable.from(parts), headers: { 'content-length': String(size) } },
      loopback,
    );
    const seenSized = JSON.parse(await text(sized.body));
    expect(seenSized).toMatchObject({ length: size, sha256: expected });
    expect(seenSized.headers['content-length']).toBe(String(size));
    expect(seenSized.headers['transfer-encoding']).toBeUndefined();
  });

  it('does not send a stream body to a refused address, nor touch it', async () => {
    const body = Readable.from([Buffer.from('x')]);
    await expect(guardedFetch('http://10.0.0.1/', { method: 'PUT', body })).rejects.toBeInstanceOf(ForbiddenAddressError);
    expect(body.readableFlowing).toBeNull();
  });
});

describe('timeouts and aborts', () => {
  let silent: TestServer;
  let dribble: TestServer;
  const open = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    silent = await serve(() => {
      // Never answers.
    });
    dribble = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 30);
      open.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        open.delete(timer);
      });
    });
  });

  afterAll(() => {
    for (const timer of open) clearInterval(timer);
  });

  it('fails a silent server after idleTimeoutMs, retryably', async () => {
    const err = await rejection(guardedFetch(`${silent.origin}/`, { idleTimeoutMs: 200 }, loopback));
    expect(err).toMatchObject({ failure: 'TIMEOUT', retryable: true });
    expect(err.message).toContain('no progress for 200 ms');
  });

  it('fails a slow transfer at timeoutMs, even while bytes keep coming', async () => {
    const res = await guardedFetch(`${dribble.origin}/`, { timeoutMs: 400, idleTimeoutMs: 200 }, loopback);
    const err = await rejection(text(res.body));
    expect(err).toMatchObject({ failure: 'TIMEOUT', retryable: true });
    expect(err.message).toContain('did not complete within 400 ms');
  });

  it('fails a connection that never completes its handshake after connectTimeoutMs', async () => {
    const held: Socket[] = [];
    const tcp: TcpServer = createTcpServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const { port } = tcp.address() as { port: number };
    try {
      const err = await rejection(guardedFetch(`https://127.0.0.1:${port}/`, { connectTimeoutMs: 200 }, loopback));
      expect(err).toMatchObject({ failure: 'TIMEOUT', retryable: true });
      expect(err.message).toContain('could not connect within 200 ms');
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => tcp.close(resolve));
    }
  });

  it("a slow reader is not an idle server: the idle timer waits while the reader applies backpressure", async () => {
    const server = await serve((_req, res) => res.end(Buffer.alloc(4 * 1024 * 1024)));
    const res = await guardedFetch(`${server.origin}/`, { idleTimeoutMs: 150 }, loopback);
    let received = 0;
    for await (const part of res.body) {
      if (received === 0) await sleep(500);
      received += (part as Buffer).length;
    }
    expect(received).toBe(4 * 1024 * 1024);
  });

  it("the caller's signal aborts the body mid-transfer, and the server sees the connection close", async () => {
    const controller = new AbortController();
    const res = await guardedFetch(`${dribble.origin}/abort-me`, { signal: controller.signal }, loopback);
    const reading = rejection(text(res.body));
    await sleep(100);
    controller.abort();
    const err = await reading;
    expect(err).toMatchObject({ failure: 'ABORTED', retryable: false });
    await vi.waitFor(() => expect(open.size).toBe(0));
  });

  it('an already aborted signal sends nothing', async () => {
    const before = silent.connections;
    const err = await rejection(guardedFetch(`${silent.origin}/`, { signal: AbortSignal.abort() }, loopback));
    expect(err).toMatchObject({ failure: 'ABORTED' });
    expect(silent.connections).toBe(before);
  });
});

describe('errors', () => {
  it('a refused connection is a retryable network failure', async () => {
    const server = await serve(() => undefined);
    const { port } = server;
    await server.close();
    const err = await rejection(guardedFetch(`http://127.0.0.1:${port}/`, {}, loopback));
    expect(err).toBeInstanceOf(FetchFailedError);
    expect(err).toMatchObject({ failure: 'NETWORK', retryable: true });
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('assertOk: 4xx is final, 5xx/429 retryable, 2xx passes', async () => {
    const server = await serve((req, res) => {
      res.statusCode = Number(req.url!.slice(1));
      res.end('status body');
    });
    const fetchStatus = (status: number) => guardedFetch(`${server.origin}/${status}`, {}, loopback);
    await expect(fetchStatus(404).then(assertOk)).rejects.toMatchObject({ failure: 'HTTP_STATUS', retryable: false, upstreamStatus: 404 });
    await expect(fetchStatus(503).then(assertOk)).rejects.toMatchObject({ retryable: true, upstreamStatus: 503 });
    await expect(fetchStatus(429).then(assertOk)).rejects.toMatchObject({ retryable: true });
    const ok = assertOk(await fetchStatus(201));
    expect(await text(ok.body)).toBe('status body');
  });

  it('refuses header injection and forbidden methods before connecting', async () => {
    const server = await serve((_req, res) => res.end());
    await expect(guardedFetch(server.origin, { headers: { 'x-a': 'v\r\nx-b: injected' } }, loopback)).rejects.toMatchObject({
      failure: 'INVALID_REQUEST',
    });
    await expect(guardedFetch(server.origin, { method: 'CONNECT' }, loopback)).rejects.toMatchObject({ failure: 'INVALID_REQUEST' });
    expect(server.connections).toBe(0);
  });

  it('does not let the caller choose the Host header', async () => {
    const server = await serve((req, res) => res.end(req.headers.host));
    const res = await guardedFetch(server.origin, { headers: { host: 'metadata.google.internal' } }, loopback);
    expect(await text(res.body)).toBe(`127.0.0.1:${server.port}`);
  });
});
