/**
 * User storage in an OpenStack Swift container, for `import/openstack` and `export/openstack`.
 *
 * Authentication is Keystone v3 with a password: `POST {auth_url}/v3/auth/tokens` names the user (in
 * its domain, `Default` unless `domain` says otherwise) and, when given, the project to scope the token
 * to (else Keystone scopes it to the user's default project). The token comes back in
 * `X-Subject-Token`, and the object-store endpoint for `region` (public interface) in the catalog.
 * Objects are then `PUT`/`GET {endpoint}/{container}/{object}` with `X-Auth-Token`, listed with
 * `GET {endpoint}/{container}?format=json&prefix=…&marker=…`.
 *
 * Every request goes through the guarded client: `auth_url` is the user's, and so is the endpoint
 * in the catalog their Keystone returns, so both are held to the address policy like any user URL.
 * Uploads stream with their length (single objects up to Swift's 5 GiB limit) and are checked by the
 * MD5 ETag Swift answers with.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { checkUrlResolved, guardedFetch, type AddressPolicy, type GuardedResponse } from '../net/guarded-fetch.js';
import { abortError, describeCommonError, StorageFailure } from './failure.js';
import { retryableStatus } from '../net/retry.js';
import { type StorageErrorInfo, type StoredObject, type UserStorage } from './port.js';
import { trimEnd } from '../../kernel/text.js';

/** The task arguments of `import/openstack` and `export/openstack` that say where and who. */
export interface SwiftArgs {
  /** Keystone's URL: with or without `/v3` (or `/v3/auth/tokens`). */
  auth_url: string;
  username: string;
  password: string;
  region: string;
  container: string;
  /** Project to scope the token to, by name (ours; alias `tenant_name`). */
  project_name?: string;
  tenant_name?: string;
  /** …or by id (ours; alias `tenant_id`). */
  project_id?: string;
  tenant_id?: string;
  /** Domain of the user, and of the project unless `project_domain` is given (ours). Default `Default`. */
  domain?: string;
  project_domain?: string;
}

export interface SwiftConnection {
  authUrl: string;
  username: string;
  password: string;
  region: string;
  container: string;
  projectName?: string;
  projectId?: string;
  userDomain: string;
  projectDomain: string;
}

export interface SwiftOpenOptions {
  policy: AddressPolicy;
  signal?: AbortSignal;
}

/** Swift's largest single object; larger ones need segments (not supported). */
export const SWIFT_MAX_OBJECT = 5 * 1024 ** 3;
/** Objects per listing page. */
const PAGE = 1000;
/** Largest JSON answer read (token with catalog, a listing page). */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

/** The connection a task's arguments describe, or a `StorageFailure` naming the argument at fault. */
export function swiftConnection(args: SwiftArgs): SwiftConnection {
  for (const name of ['auth_url', 'username', 'password', 'region', 'container'] as const) {
    if (typeof args[name] !== 'string' || args[name] === '') {
      throw new StorageFailure('INVALID_ARGUMENT', `${name} is required.`, { transient: false });
    }
  }
  if (args.container.includes('/')) throw new StorageFailure('INVALID_ARGUMENT', 'container must not contain "/".', { transient: false });
  const userDomain = args.domain || 'Default';
  return {
    authUrl: args.auth_url,
    username: args.username,
    password: args.password,
    region: args.region,
    container: args.container,
    projectName: args.project_name || args.tenant_name || undefined,
    projectId: args.project_id || args.tenant_id || undefined,
    userDomain,
    projectDomain: args.project_domain || userDomain,
  };
}

/** `…/v3/auth/tokens` from an auth URL given with or without its version (a v2.0 URL is moved to v3). */
export function tokensUrl(authUrl: string): string {
  const url = new URL(authUrl);
  url.search = '';
  url.hash = '';
  let path = trimEnd(url.pathname, '/');
  if (path.endsWith('/auth/tokens')) path = path.slice(0, -'/auth/tokens'.length);
  if (path.endsWith('/v2.0')) path = path.slice(0, -'/v2.0'.length);
  if (!path.endsWith('/v3')) path += '/v3';
  url.pathname = `${path}/auth/tokens`;
  return url.href;
}

interface CatalogEntry {
  type?: string;
  endpoints?: Array<{ interface?: string; region?: string; region_id?: string; url?: string }>;
}

/** The object-store endpoint for `region` (public interface) in a Keystone v3 catalog. */
export function objectStoreEndpoint(catalog: CatalogEntry[], region: string): string {
  const endpoints = catalog.filter((c) => c.type === 'object-store').flatMap((c) => c.endpoints ?? []);
  const publicOnes = endpoints.filter((e) => (e.interface ?? 'public') === 'public' && e.url);
  const inRegion = (e: (typeof publicOnes)[number], exact: boolean) =>
    [e.region_id, e.region].some((r) => r !== undefined && (exact ? r === region : r.toLowerCase() === region.toLowerCase()));
  const found = publicOnes.find((e) => inRegion(e, true)) ?? publicOnes.find((e) => inRegion(e, false));
  if (!found) {
    const regions = [...new Set(publicOnes.map((e) => e.region_id ?? e.region).filter(Boolean))];
    throw new StorageFailure(
      'REGION_NOT_FOUND',
      regions.length === 0
        ? 'The token catalog has no public object-store (Swift) endpoint.'
        : `The token catalog has no public object-store endpoint in region "${region}" (regions: ${regions.join(', ')}).`,
      { transient: false },
    );
  }
  return trimEnd(found.url!, '/');
}

/** An object name as a URL path: every segment encoded, slashes kept. */
const objectPath = (name: string) => name.split('/').map(encodeURIComponent).join('/');

async function readJson(res: GuardedResponse, what: string): Promise<unknown> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of res.body) {
    length += (chunk as Buffer).length;
    if (length > MAX_JSON_BYTES) {
      res.body.destroy();
      throw new StorageFailure('RESPONSE_TOO_LARGE', `${what} is larger than ${MAX_JSON_BYTES} bytes.`, { transient: false });
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new StorageFailure('INVALID_RESPONSE', `${what} is not JSON.`, { transient: false });
  }
}

/** A non-2xx Swift answer as a failure (body discarded; Swift's bodies are short HTML/text). */
function swiftFailure(res: GuardedResponse, what: string): StorageFailure {
  res.body.destroy();
  const code = res.status === 401 ? 'UNAUTHORIZED' : res.status === 403 ? 'FORBIDDEN' : res.status === 404 ? 'NOT_FOUND' : `HTTP_${res.status}`;
  return new StorageFailure(code, `${what}: Swift answered HTTP ${res.status}.`, { transient: retryableStatus(res.status), status: res.status });
}

export class SwiftStorage implements UserStorage {
  readonly service = 'OpenStack Swift';
  private token = '';
  private endpoint = '';

  private constructor(
    private readonly conn: SwiftConnection,
    private readonly policy: AddressPolicy,
  ) {}

  /** Authenticates, finds the region's endpoint and checks it against the address policy. */
  static async open(conn: SwiftConnection, opts: SwiftOpenOptions): Promise<SwiftStorage> {
    const storage = new SwiftStorage(conn, opts.policy);
    await storage.authenticate(opts.signal ?? AbortSignal.timeout(60_000));
    return storage;
  }

  private async authenticate(signal: AbortSignal): Promise<void> {
    const c = this.conn;
    const url = tokensUrl(c.authUrl);
    const project = c.projectId ? { id: c.projectId } : c.projectName ? { name: c.projectName, domain: { name: c.projectDomain } } : undefined;
    const body = JSON.stringify({
      auth: {
        identity: { methods: ['password'], password: { user: { name: c.username, domain: { name: c.userDomain }, password: c.password } } },
        ...(project ? { scope: { project } } : {}),
      },
    });
    const res = await guardedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body, signal, timeoutMs: 60_000, maxRedirects: 0 },
      this.policy,
    );
    if (res.status === 401 || res.status === 403) {
      res.body.destroy();
      throw new StorageFailure('AUTHENTICATION_FAILED', `Keystone refused the username and password of "${c.username}" (domain "${c.userDomain}"): HTTP ${res.status}.`, {
        transient: false,
        status: res.status,
      });
    }
    if (res.status < 200 || res.status >= 300) throw swiftFailure(res, 'Keystone token request');
    const token = res.headers.get('x-subject-token');
    const answer = (await readJson(res, "Keystone's token answer")) as { token?: { catalog?: CatalogEntry[] } };
    if (!token) throw new StorageFailure('INVALID_RESPONSE', 'Keystone answered without an X-Subject-Token.', { transient: false });
    const catalog = answer.token?.catalog;
    if (!Array.isArray(catalog)) {
      throw new StorageFailure(
        'NO_CATALOG',
        'Keystone issued a token without a service catalog: the user has no default project; give project_name (or project_id).',
        { transient: false },
      );
    }
    const endpoint = objectStoreEndpoint(catalog, c.region);
    // The endpoint is whatever the user's Keystone says: hold it to the same policy, DNS included.
    await checkUrlResolved(endpoint, this.policy);
    this.token = token;
    this.endpoint = endpoint;
  }

  private objectUrl(name: string): string {
    return `${this.endpoint}/${encodeURIComponent(this.conn.container)}/${objectPath(name)}`;
  }

  /** A request with the token; a replayable one is sent again once after a 401 with a fresh token. */
  private async request(url: string, init: { method: string; headers?: Record<string, string>; body?: Readable }, signal: AbortSignal) {
    const send = () =>
      guardedFetch(url, { ...init, headers: { ...init.headers, 'x-auth-token': this.token }, signal, sensitiveHeaders: ['x-auth-token'], maxRedirects: 0 }, this.policy);
    let res = await send();
    if (res.status === 401 && init.body === undefined) {
      res.body.destroy();
      await this.authenticate(signal);
      res = await send();
    }
    return res;
  }

  async put(upload: { name: string; body: Readable; size: number; contentType: string }, signal: AbortSignal): Promise<void> {
    if (upload.size > SWIFT_MAX_OBJECT) {
      throw new StorageFailure('OBJECT_TOO_LARGE', `${upload.name} is ${upload.size} bytes; Swift takes single objects up to 5 GiB.`, { transient: false });
    }
    const md5 = createHash('md5');
    const body = new Transform({
      highWaterMark: 256 * 1024,
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        done(null, chunk);
      },
    });
    upload.body.once('error', (err) => body.destroy(err));
    upload.body.pipe(body);
    const res = await this.request(
      this.objectUrl(upload.name),
      { method: 'PUT', headers: { 'content-type': upload.contentType, 'content-length': String(upload.size) }, body },
      signal,
    );
    if (res.status < 200 || res.status >= 300) throw swiftFailure(res, `PUT ${this.conn.container}/${upload.name}`);
    res.body.resume();
    const etag = res.headers.get('etag')?.replace(/"/g, '');
    if (etag && etag !== md5.digest('hex')) {
      throw new StorageFailure('CHECKSUM_MISMATCH', `Swift stored ${this.conn.container}/${upload.name} with another MD5 than was sent.`, { transient: true });
    }
  }

  async get(name: string, signal: AbortSignal): Promise<{ body: Readable; size?: number; contentType?: string }> {
    const res = await this.request(this.objectUrl(name), { method: 'GET' }, signal);
    if (res.status !== 200) throw swiftFailure(res, `GET ${this.conn.container}/${name}`);
    const length = res.headers.get('content-length');
    const onAbort = () => res.body.destroy(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    res.body.once('close', () => signal.removeEventListener('abort', onAbort));
    return { body: res.body, size: length === null ? undefined : Number(length), contentType: res.headers.get('content-type') ?? undefined };
  }

  async *list(prefix: string, signal: AbortSignal): AsyncIterable<StoredObject> {
    let marker = '';
    for (;;) {
      const query = new URLSearchParams({ format: 'json', limit: String(PAGE), ...(prefix ? { prefix } : {}), ...(marker ? { marker } : {}) });
      const res = await this.request(`${this.endpoint}/${encodeURIComponent(this.conn.container)}?${query}`, { method: 'GET', headers: { accept: 'application/json' } }, signal);
      if (res.status === 204) return res.body.destroy();
      if (res.status !== 200) throw swiftFailure(res, `Listing ${this.conn.container}`);
      const page = (await readJson(res, 'The container listing')) as Array<{ name?: string; bytes?: number; content_type?: string; subdir?: string }>;
      if (!Array.isArray(page)) throw new StorageFailure('INVALID_RESPONSE', 'The container listing is not a JSON array.', { transient: false });
      for (const o of page) if (typeof o.name === 'string') yield { name: o.name, size: o.bytes, contentType: o.content_type };
      const last = page.at(-1)?.name;
      if (page.length < PAGE || !last) return;
      marker = last;
    }
  }

  describe(err: unknown): StorageErrorInfo {
    return describeSwiftError(err);
  }

  close(): void {
    // Every request had its own connection (the guarded client keeps none alive).
  }
}

export function describeSwiftError(err: unknown): StorageErrorInfo {
  const common = describeCommonError(err);
  if (common) return common;
  const e = err as { code?: unknown; message?: string } | undefined;
  return { code: typeof e?.code === 'string' ? e.code : undefined, message: e?.message || 'The Swift request failed.', transient: false };
}
