/**
 * A protocol test double of OpenStack Keystone v3 (password authentication) and Swift, on one port:
 *
 * - `POST /v3/auth/tokens`: the user must exist in the named domain with that password (else 401); a
 *   project scope, when sent, must be one of the user's projects (else 401); no scope means the
 *   user's default project. The answer carries `X-Subject-Token` (random) and a catalog with an
 *   object-store endpoint per region (public and internal interfaces), by default this server's
 *   `/v1/AUTH_<project>`; `catalogUrl` replaces the public one (to point it somewhere forbidden).
 * - `PUT`/`GET`/`HEAD /v1/AUTH_<project>/<container>/<object>` and
 *   `GET /v1/AUTH_<project>/<container>?format=json&prefix=&marker=&limit=`: need `X-Auth-Token` of a
 *   token issued here for that project (else 401); containers must exist (else 404); objects are kept
 *   in memory, answered with their MD5 as `ETag`. A PUT must send exactly `Content-Length` bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SwiftUser {
  password: string;
  domain?: string;
  projects: string[];
}

export interface SwiftDouble {
  authUrl: string;
  /** The object store's own URL for a project. */
  storageUrl(project: string): string;
  /** container → object name → stored object. */
  containers: Map<string, Map<string, { data: Buffer; contentType: string }>>;
  /** Token exchanges and object requests, in order. */
  log: Array<{ kind: 'token'; user: string; ok: boolean } | { kind: 'object'; method: string; path: string; authorized: boolean; status: number }>;
  /** Replaces the public object-store URL the catalog gives (`undefined`: this server's). */
  catalogUrl?: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const REGIONS = ['RegionOne', 'GRA'];

export async function startSwiftDouble(users: Record<string, SwiftUser>, containers: string[]): Promise<SwiftDouble> {
  const tokens = new Map<string, string>(); // token → project
  const double = {
    containers: new Map(containers.map((c) => [c, new Map()])),
    log: [],
    catalogUrl: undefined,
  } as unknown as SwiftDouble;
  let base = '';

  const reply = (res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body);

  async function token(req: IncomingMessage, res: ServerResponse) {
    let auth: any;
    try {
      auth = JSON.parse((await readBody(req)).toString()).auth;
    } catch {
      return reply(res, 400, 'bad json');
    }
    const user = auth?.identity?.password?.user;
    const known = users[user?.name];
    const domainOk = (user?.domain?.name ?? user?.domain?.id) === (known?.domain ?? 'Default');
    const scope = auth?.scope?.project;
    const project: string | undefined = scope ? scope.name ?? scope.id : known?.projects[0];
    const ok =
      auth?.identity?.methods?.includes('password') === true && known !== undefined && domainOk && user.password === known.password && project !== undefined && known.projects.includes(project);
    double.log.push({ kind: 'token', user: String(user?.name), ok });
    if (!ok) return reply(res, 401, JSON.stringify({ error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' } }), { 'content-type': 'application/json' });
    const issued = randomBytes(24).toString('hex');
    tokens.set(issued, project!);
    const endpoints = REGIONS.flatMap((region) => [
      { interface: 'public', region, region_id: region, url: double.catalogUrl ?? double.storageUrl(project!) },
      { interface: 'internal', region, region_id: region, url: 'http://10.0.0.1:8080/v1/AUTH_internal' },
    ]);
    const catalog = [
      { type: 'identity', name: 'keystone', endpoints: [{ interface: 'public', region: 'RegionOne', url: `${base}/v3` }] },
      { type: 'object-store', name: 'swift', endpoints },
    ];
    reply(res, 201, JSON.stringify({ token: { methods: ['password'], project: { name: project }, catalog } }), {
      'content-type': 'application/json',
      'x-subject-token': issued,
    });
  }

  async function object(req: IncomingMessage, res: ServerResponse, url: URL) {
    const [, v1, account, container, ...rest] = url.pathname.split('/');
    const project = account?.startsWith('AUTH_') ? account.slice(5) : undefined;
    const given = req.headers['x-auth-token'];
    const authorized = v1 === 'v1' && typeof given === 'string' && tokens.get(given) === project;
    const done = (status: number, body = '', headers: Record<string, string> = {}) => {
      double.log.push({ kind: 'object', method: req.method!, path: url.pathname, authorized, status });
      reply(res, status, body, headers);
    };
    if (!authorized) return void (await readBody(req), done(401, 'Unauthorized'));
    const objects = double.containers.get(decodeURIComponent(container ?? ''));
    if (!objects) return void (await readBody(req), done(404, 'Not Found'));
    const name = rest.map(decodeURIComponent).join('/');
    if (name === '' && req.method === 'GET') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const marker = url.searchParams.get('marker') ?? '';
      const limit = Number(url.searchParams.get('limit') ?? 10000);
      const names = [...objects.keys()].filter((n) => n.startsWith(prefix) && n > marker).sort().slice(0, limit);
      if (names.length === 0) return done(204);
      const page = names.map((n) => {
        const o = objects.get(n)!;
        return { name: n, bytes: o.data.length, content_type: o.contentType, hash: createHash('md5').update(o.data).digest('hex') };
      });
      return done(200, JSON.stringify(page), { 'content-type': 'application/json; charset=utf-8' });
    }
    if (req.method === 'PUT') {
      const data = await readBody(req);
      if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== 'chunked') return done(411, 'Length Required');
      if (req.headers['content-length'] !== undefined && Number(req.headers['content-length']) !== data.length) return done(499);
      objects.set(name, { data, contentType: req.headers['content-type'] ?? 'application/octet-stream' });
      return done(201, '', { etag: createHash('md5').update(data).digest('hex') });
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const o = objects.get(name);
      if (!o) return done(404, 'Not Found');
      double.log.push({ kind: 'object', method: req.method, path: url.pathname, authorized, status: 200 });
      res.writeHead(200, { 'content-type': o.contentType, 'content-length': String(o.data.length), etag: createHash('md5').update(o.data).digest('hex') });
      return void res.end(req.method === 'GET' ? o.data : undefined);
    }
    done(405);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const work = req.method === 'POST' && url.pathname === '/v3/auth/tokens' ? token(req, res) : object(req, res, url);
    work.catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.authUrl = `${base}/v3`;
  double.storageUrl = (project) => `${base}/v1/AUTH_${project}`;
  double.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return double;
}
