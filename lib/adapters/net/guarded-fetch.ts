/**
 * The one HTTP client for every request made on a user's behalf (import/url, export/upload, webhooks,
 * capture-website, custom storage endpoints). It checks the address actually dialled on every
 * connection: DNS is resolved by a guarded `lookup` that refuses the whole host when any address it
 * resolves to is forbidden, and the socket connects to exactly the addresses that passed. Literal
 * addresses are checked before connecting and the connected peer once more on `connect`.
 *
 * Redirects are followed by hand (each hop re-checked), bodies stream both ways with backpressure, and
 * every failure is a `FetchFailedError` that says whether a retry may help.
 *
 * Cloud SDKs given a user's endpoint use `createGuardedAgents` (every socket they open is checked the
 * same way) after `checkUrl`/`checkUrlResolved` has validated the endpoint up front.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { Socket, type LookupFunction } from 'node:net';
import { PassThrough, pipeline, Readable, Transform, type Duplex } from 'node:stream';
import { Buffer } from 'node:buffer';
import {
  assertPublicAddress,
  checkUrl,
  describeUrl,
  FetchFailedError,
  ForbiddenAddressError,
  parseHost,
  portOf,
  type AddressPolicy,
} from './address-policy.js';
import { retryableNetworkCode, retryableStatus } from './retry.js';
import { isCredentialHeader } from '../../kernel/redact.js';

export {
  assertPublicAddress,
  blockReason,
  checkUrl,
  classifyAddress,
  FetchFailedError,
  ForbiddenAddressError,
  type AddressPolicy,
  type BlockReason,
  type FetchFailureCode,
} from './address-policy.js';

export type RequestBody = Readable | Buffer | Uint8Array | string;

export interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  /** A stream is sent once (chunked unless `content-length` is given) and never replayed. */
  body?: RequestBody;
  /** Aborts the request and, later, the response body (`FetchFailedError` code `ABORTED`). */
  signal?: AbortSignal;
  /** Redirects to follow before failing with `TOO_MANY_REDIRECTS`. Default 10. */
  maxRedirects?: number;
  /** Deadline for the whole transfer, response body included. Default: none. */
  timeoutMs?: number;
  /** DNS + TCP + TLS, per hop. Default 10 s. */
  connectTimeoutMs?: number;
  /** Longest wait for progress (request body sent, response bytes received while the reader wants them). Default 30 s. */
  idleTimeoutMs?: number;
  /** Further header names to drop on a cross-origin redirect (besides the credential headers of lib/kernel/redact.ts). */
  sensitiveHeaders?: readonly string[];
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  headers: Headers;
  /** The final URL, without userinfo (may carry a query with secrets: do not log it). */
  url: string;
  /** Each redirect target followed, in order (same caveat as `url`). */
  redirects: string[];
  /** The response body, streamed; destroy it to abandon the transfer. Errors are `FetchFailedError`s. */
  body: Readable;
}

const DEFAULT_MAX_REDIRECTS = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** Request headers the client owns (framing, connection management, virtual host). Silently dropped. */
const OWNED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'http2-settings',
]);
/** Headers describing a request body, removed when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

// ---------------------------------------------------------------------------------------------------
// Dialling: lookup and agents

/**
 * A `lookup` for `net.connect`/`http.request`/undici `connect` options: resolves every address of the
 * host, refuses it if any one is forbidden, and hands only checked addresses to the socket. `port`
 * enables `allowHosts` matching (without it, allowHosts entries never match: fail closed).
 */
export function createGuardedLookup(policy: AddressPolicy = {}, target: { port?: number } = {}): LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    try {
      assertPublicAddress(hostname, policy, { port: target.port });
    } catch (err) {
      process.nextTick(callback, err as NodeJS.ErrnoException, '');
      return;
    }
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      try {
        for (const { address } of addresses) assertPublicAddress(address, policy, { host: hostname, port: target.port });
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, '');
      }
      const [first] = addresses;
      if (options.all === true || first === undefined) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

type ConnectionCallback = (err: Error | null, stream: Duplex) => void;

/**
 * Checks a connection before and after it is made: a literal address up front, a name through the
 * guarded lookup, the connected peer on `connect` (before the request is written).
 */
function guardConnection<O extends http.ClientRequestArgs>(
  options: O,
  policy: AddressPolicy,
  defaultPort: number,
  callback: ConnectionCallback | undefined,
  create: (options: O) => ReturnType<http.Agent['createConnection']>,
): ReturnType<http.Agent['createConnection']> {
  const host = options.host ?? options.hostname ?? 'localhost';
  const port = Number(options.port ?? defaultPort);
  try {
    const parsed = parseHost(host);
    assertPublicAddress(parsed.kind === 'ip' ? parsed.address : host, policy, { host, port });
  } catch (err) {
    if (!callback) throw err;
    process.nextTick(callback, err as Error, undefined as never);
    return undefined;
  }
  const socket = create({ ...options, lookup: createGuardedLookup(policy, { port }) });
  if (socket instanceof Socket) {
    socket.once('connect', () => {
      try {
        assertPublicAddress(socket.remoteAddress ?? '', policy, { host, port });
      } catch (err) {
        socket.destroy(err as Error);
      }
    });
  }
  return socket;
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    options?: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, callback?: ConnectionCallback) {
    return guardConnection(options, this.policy, 80, callback, (o) => super.createConnection(o, callback));
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    options?: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback) {
    return guardConnection(options, this.policy, 443, callback, (o) => super.createConnection(o, callback));
  }
}

/**
 * `http`/`https` agents whose every socket is checked under `policy`, for SDKs given a user endpoint
 * (e.g. `new NodeHttpHandler({ httpAgent, httpsAgent })`). Keep-alive pools hold only checked sockets.
 */
export function createGuardedAgents(
  policy: AddressPolicy = {},
  options: https.AgentOptions = {},
): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  return { httpAgent: new GuardedHttpAgent(policy, options), httpsAgent: new GuardedHttpsAgent(policy, options) };
}

/**
 * `checkUrl` plus DNS: resolves the host and checks every address. For validating an endpoint before
 * handing it to an SDK or a browser; it cannot stop a later rebinding, so connect through the guarded
 * client or agents as well.
 */
export async function checkUrlResolved(
  input: string | URL,
  policy: AddressPolicy = {},
): Promise<{ url: URL; addresses: string[] }> {
  const url = checkUrl(input, policy);
  const lookup = createGuardedLookup(policy, { port: portOf(url) });
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      lookup(hostname, { all: true }, (err, result) => (err ? reject(err) : resolve(result as LookupAddress[]))),
    );
    return { url, addresses: addresses.map((a) => a.address) };
  } catch (err) {
    throw toFetchError(err, 'GET', url);
  }
}

/** How long a URL kept for later (`checkKeptUrl`) may take to resolve before it is left to the call. */
const KEPT_URL_LOOKUP_MS = 2000;

/**
 * For a URL kept to be called later (a job's `webhook_url`, a webhook endpoint): `checkUrl`, and the
 * addresses its name resolves to now (`localhost.localdomain`, a name in /etc/hosts, a public DNS name
 * of 127.0.0.1). A forbidden address is refused; a name that does not resolve now, or not within two
 * seconds, is left to the call, whose guarded client checks every address it dials again.
 */
export async function checkKeptUrl(input: string | URL, policy: AddressPolicy = {}): Promise<URL> {
  const url = checkUrl(input, policy);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      checkUrlResolved(url, policy),
      new Promise((resolve) => {
        timer = setTimeout(resolve, KEPT_URL_LOOKUP_MS);
        timer.unref();
      }),
    ]);
  } catch (err) {
    if (err instanceof ForbiddenAddressError) throw err;
  } finally {
    clearTimeout(timer);
  }
  return url;
}

// ---------------------------------------------------------------------------------------------------
// Errors

/** Throws a `FetchFailedError` (after discarding the body) unless the response status is 2xx. */
export function assertOk(response: GuardedResponse): GuardedResponse {
  if (response.status >= 200 && response.status < 300) return response;
  response.body.destroy();
  const url = new URL(response.url);
  throw new FetchFailedError('HTTP_STATUS', `${describeUrl(url)} answered HTTP ${response.status}.`, {
    retryable: retryableStatus(response.status),
    upstreamStatus: response.status,
  });
}

function toFetchError(err: unknown, method: string, url: URL): FetchFailedError {
  if (err instanceof FetchFailedError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const what = code ?? (err instanceof Error ? err.message : String(err));
  return new FetchFailedError('NETWORK', `${method} ${describeUrl(url)} failed: ${what}.`, {
    retryable: retryableNetworkCode(code),
    cause: err,
  });
}

// ---------------------------------------------------------------------------------------------------
// One request/response exchange

interface Limits {
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** Counts progress on a request body stream for the idle timer. */
function meter(onProgress: () => void): Transform {
  return new Transform({
    transform(chunk, _encoding, done) {
      onProgress();
      done(null, chunk);
    },
  });
}

/**
 * One hop: sends the request and resolves with the response head. Timers: connect (DNS+TCP+TLS) and
 * idle (no progress). `abort` ends whichever side is alive with the given error.
 */
class Exchange {
  readonly response: Promise<http.IncomingMessage>;
  private readonly req: http.ClientRequest;
  private res?: http.IncomingMessage;
  private connectTimer?: NodeJS.Timeout;
  private idleTimer?: NodeJS.Timeout;
  private finished = false;

  constructor(
    private readonly url: URL,
    private readonly method: string,
    headers: Map<string, string>,
    body: RequestBody | undefined,
    agents: { httpAgent: http.Agent; httpsAgent: https.Agent },
    private readonly limits: Limits,
  ) {
    const secure = url.protocol === 'https:';
    const outgoing: Record<string, string> = Object.fromEntries(headers);
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    if (payload !== undefined && !(payload instanceof Readable)) outgoing['content-length'] = String(payload.byteLength);
    this.req = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: portOf(url),
      path: `${url.pathname}${url.search}`,
      method,
      headers: outgoing,
      agent: secure ? agents.httpsAgent : agents.httpAgent,
    });
    this.response = new Promise((resolve, reject) => {
      this.req.once('response', (res) => {
        clearTimeout(this.connectTimer);
        this.res = res;
        resolve(res);
      });
      this.req.on('error', (err) => {
        this.stopTimers();
        reject(toFetchError(err, method, url));
      });
    });
    this.connectTimer = setTimeout(
      () => this.abort(this.timeout(`could not connect within ${limits.connectTimeoutMs} ms`)),
      limits.connectTimeoutMs,
    );
    this.req.once('socket', (socket) => {
      const connected = () => clearTimeout(this.connectTimer);
      if (!socket.connecting) connected();
      else socket.once(secure ? 'secureConnect' : 'connect', connected);
    });
    this.resumeIdle();
    if (payload instanceof Readable) {
      pipeline(payload, meter(() => this.idleTimer?.refresh()), this.req, () => {
        // Failures surface through the request's own 'error' (or the response, once it has arrived).
      });
    } else {
      this.req.end(payload);
    }
  }

  private timeout(what: string): FetchFailedError {
    return new FetchFailedError('TIMEOUT', `${this.method} ${describeUrl(this.url)}: ${what}.`, { retryable: true });
  }

  private resumeIdle(): void {
    if (this.finished || this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(
      () => this.abort(this.timeout(`no progress for ${this.limits.idleTimeoutMs} ms`)),
      this.limits.idleTimeoutMs,
    );
  }

  private pauseIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private stopTimers(): void {
    this.finished = true;
    clearTimeout(this.connectTimer);
    this.pauseIdle();
  }

  abort(err: FetchFailedError): void {
    this.stopTimers();
    if (this.res) this.res.destroy(err);
    else this.req.destroy(err);
  }

  /** Throws the response away (a redirect hop). */
  discard(): void {
    this.stopTimers();
    this.res?.destroy();
    this.req.destroy();
  }

  /**
   * The response body as a stream that applies backpressure to the socket. The idle timer runs only
   * while the reader wants data; `onClose` runs once when the body ends, fails or is destroyed.
   */
  stream(onClose: () => void): Readable {
    const res = this.res!;
    const body = new PassThrough({ highWaterMark: 64 * 1024 });
    res.on('data', (chunk: Buffer) => {
      this.idleTimer?.refresh();
      if (!body.write(chunk)) {
        res.pause();
        this.pauseIdle();
      }
    });
    body.on('drain', () => {
      this.resumeIdle();
      res.resume();
    });
    res.once('end', () => {
      this.stopTimers();
      body.end();
    });
    res.on('error', (err) => {
      this.stopTimers();
      body.destroy(toFetchError(err, this.method, this.url));
    });
    body.once('close', () => {
      this.stopTimers();
      if (!res.complete) res.destroy();
      onClose();
    });
    return body;
  }
}

// ---------------------------------------------------------------------------------------------------
// The client

function positive(value: number | undefined, fallback: number | undefined, name: string): number | undefined {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds`);
  return value;
}

function invalidRequest(message: string): FetchFailedError {
  return new FetchFailedError('INVALID_REQUEST', message, { retryable: false });
}

function requestHeaders(input: GuardedFetchInit['headers']): Map<string, string> {
  const headers = new Map<string, string>();
  const entries = input instanceof Headers ? [...input.entries()] : Object.entries(input ?? {});
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    try {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
    } catch {
      throw invalidRequest(`Header "${name.slice(0, 64)}" has an invalid name or value.`);
    }
    if (!OWNED_HEADERS.has(name)) headers.set(name, value);
  }
  return headers;
}

function responseHeaders(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // A header the Fetch API cannot represent: not needed by any caller.
    }
  }
  return headers;
}

/** Moves URL userinfo into a Basic `authorization` header (unless one is given) and off the URL. */
function takeUserinfo(url: URL, headers: Map<string, string>): void {
  if (url.username === '' && url.password === '') return;
  if (!headers.has('authorization')) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.set('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
  }
  url.username = '';
  url.password = '';
}

/**
 * Fetches `url` on a user's behalf under `policy` (default: public addresses only). Resolves once the
 * final response head arrives, whatever its status (see `assertOk`); rejects with `FetchFailedError`
 * (`ForbiddenAddressError` for a refused address, on any hop). Request bodies: a stream is sent as it
 * is read and never replayed; a Buffer or string is replayed on 307/308.
 */
export async function guardedFetch(
  input: string | URL,
  init: GuardedFetchInit = {},
  policy: AddressPolicy = {},
): Promise<GuardedResponse> {
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) throw new RangeError('maxRedirects must be a non-negative integer');
  const limits: Limits = {
    connectTimeoutMs: positive(init.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs')!,
    idleTimeoutMs: positive(init.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS, 'idleTimeoutMs')!,
  };
  const timeoutMs = positive(init.timeoutMs, undefined, 'timeoutMs');

  let url = new URL(checkUrl(input, policy));
  url.hash = '';
  let method = (init.method ?? 'GET').toUpperCase();
  if (!/^[!#$%&'*+.^_`|~0-9A-Z-]+$/.test(method) || FORBIDDEN_METHODS.has(method)) {
    throw invalidRequest(`Method "${method.slice(0, 16)}" is not allowed.`);
  }
  const headers = requestHeaders(init.headers);
  takeUserinfo(url, headers);
  let body = init.body;
  const extraSecrets = new Set((init.sensitiveHeaders ?? []).map((h) => h.toLowerCase()));

  const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
  const signals = [init.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  const abortError = () =>
    init.signal?.aborted === true
      ? new FetchFailedError('ABORTED', `${method} ${describeUrl(url)} was aborted.`, { retryable: false })
      : new FetchFailedError('TIMEOUT', `${method} ${describeUrl(url)} did not complete within ${timeoutMs} ms.`, {
          retryable: true,
        });
  let current: Exchange | undefined;
  const onAbort = () => current?.abort(abortError());
  signal?.addEventListener('abort', onAbort, { once: true });
  const release = () => signal?.removeEventListener('abort', onAbort);

  const agents = createGuardedAgents(policy, { keepAlive: false });
  const redirects: string[] = [];
  try {
    for (;;) {
      if (signal?.aborted === true) throw abortError();
      try {
        current = new Exchange(url, method, headers, body, agents, limits);
      } catch (err) {
        throw toFetchError(err, method, url);
      }
      const res = await current.response;
      const location = REDIRECT_STATUSES.has(res.statusCode ?? 0) ? res.headers.location : undefined;
      if (location === undefined) {
        return {
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: responseHeaders(res),
          url: url.href,
          redirects,
          body: current.stream(release),
        };
      }
      current.discard();
      if (redirects.length >= maxRedirects) {
        throw new FetchFailedError('TOO_MANY_REDIRECTS', `${describeUrl(url)}: more than ${maxRedirects} redirects.`, {
          retryable: false,
        });
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new FetchFailedError('INVALID_URL', `${describeUrl(url)} redirected to an invalid URL.`, { retryable: false });
      }
      checkUrl(next, policy);
      next.username = '';
      next.password = '';
      next.hash = '';

      const status = res.statusCode!;
      if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of BODY_HEADERS) headers.delete(name);
      } else if (body instanceof Readable) {
        throw new FetchFailedError(
          'BODY_NOT_REPLAYABLE',
          `${describeUrl(url)} answered ${status}, which needs the streamed request body sent again.`,
          { retryable: false },
        );
      }
      if (next.origin !== url.origin) {
        for (const name of [...headers.keys()]) if (isCredentialHeader(name) || extraSecrets.has(name)) headers.delete(name);
      }
      redirects.push(next.href);
      url = next;
    }
  } catch (err) {
    current?.discard();
    release();
    throw err;
  }
}
