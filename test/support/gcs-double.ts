/**
 * A protocol test double of Google Cloud Storage's JSON API and of Google's OAuth 2.0 token endpoint,
 * for what `@google-cloud/storage` 7 sends with a service-account key:
 *
 * - `POST /token` (JWT-bearer grant): the assertion must be an RS256 JWT signed with the private half
 *   of the test's key pair (checked with the public half), issued by the service account, for Google's
 *   token audience, with a storage scope and a valid lifetime. The answer is a random access token.
 * - every storage request must carry `Authorization: Bearer <a token issued here>`;
 * - `POST /upload/storage/v1/b/{bucket}/o?uploadType=multipart` (metadata + media, multipart/related),
 *   `GET /storage/v1/b/{bucket}/o/{name}` (metadata, or the bytes with `alt=media`),
 *   `GET /storage/v1/b/{bucket}/o?prefix=` (list), `DELETE …/o/{name}`.
 *
 * Answers carry `crc32c` and `md5Hash` (the client validates uploads and downloads with them).
 */
import { CRC32C } from '@google-cloud/storage';
import { createHash, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const GOOGLE_TOKEN_AUDIENCES = ['https://www.googleapis.com/oauth2/v4/token', 'https://oauth2.googleapis.com/token'];
const STORAGE_SCOPES = /(devstorage\.(full_control|read_write|read_only)|auth\/cloud-platform)/;

export interface StoredGcsObject {
  data: Buffer;
  contentType: string;
  metadata?: Record<string, string>;
  created: string;
}

export interface GcsRequest {
  method: string;
  path: string;
  /** Whether it carried a token this double issued. */
  authorized: boolean;
}

export interface GcsDouble {
  apiEndpoint: string;
  tokenUrl: string;
  objects: Map<string, StoredGcsObject>;
  requests: GcsRequest[];
  /** Token exchanges: accepted ones and refusals (with the reason). */
  exchanges: Array<{ ok: boolean; reason?: string; iss?: string }>;
  close(): Promise<void>;
}

const b64url = (s: string) => Buffer.from(s, 'base64url');

function jsonReply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
}

function apiError(res: ServerResponse, status: number, reason: string, message: string) {
  jsonReply(res, status, { error: { code: status, message, errors: [{ domain: 'global', reason, message }] } });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const crc32c = (data: Buffer) => {
  const c = new CRC32C();
  c.update(data);
  return c.toString();
};

function resource(bucket: string, name: string, o: StoredGcsObject) {
  return {
    kind: 'storage#object',
    id: `${bucket}/${name}/1`,
    name,
    bucket,
    generation: '1',
    metageneration: '1',
    contentType: o.contentType,
    size: String(o.data.length),
    md5Hash: createHash('md5').update(o.data).digest('base64'),
    crc32c: crc32c(o.data),
    timeCreated: o.created,
    updated: o.created,
    ...(o.metadata ? { metadata: o.metadata } : {}),
  };
}

/** The parts of a multipart/related body: headers and bytes of each. */
function multipartParts(body: Buffer, contentType: string): Array<{ headers: Record<string, string>; data: Buffer }> {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error('multipart body without boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ headers: Record<string, string>; data: Buffer }> = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    const headers = Object.fromEntries(
      part
        .subarray(0, split)
        .toString('latin1')
        .split('\r\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    parts.push({ headers, data: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

export async function startGcsDouble(opts: { clientEmail: string; publicKey: KeyObject; buckets: string[] }): Promise<GcsDouble> {
  const objects = new Map<string, StoredGcsObject>();
  const requests: GcsRequest[] = [];
  const exchanges: GcsDouble['exchanges'] = [];
  const tokens = new Set<string>();
  const buckets = new Set(opts.buckets);

  const exchange = (form: URLSearchParams): { ok: true; token: string } | { ok: false; reason: string; iss?: string } => {
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return { ok: false, reason: 'unsupported grant_type' };
    const [h, p, s] = (form.get('assertion') ?? '').split('.');
    if (!h || !p || !s) return { ok: false, reason: 'assertion is not a JWT' };
    const header = JSON.parse(b64url(h).toString()) as { alg?: string };
    const claims = JSON.parse(b64url(p).toString()) as { iss?: string; aud?: string; scope?: string; exp?: number; iat?: number };
    if (header.alg !== 'RS256') return { ok: false, reason: `alg ${header.alg}`, iss: claims.iss };
    if (!verify('sha256', Buffer.from(`${h}.${p}`), opts.publicKey, b64url(s))) return { ok: false, reason: 'Invalid JWT Signature.', iss: claims.iss };
    if (claims.iss !== opts.clientEmail) return { ok: false, reason: `unknown service account ${claims.iss}`, iss: claims.iss };
    if (!claims.aud || !GOOGLE_TOKEN_AUDIENCES.includes(claims.aud)) return { ok: false, reason: `audience ${claims.aud}`, iss: claims.iss };
    if (!claims.scope || !STORAGE_SCOPES.test(claims.scope)) return { ok: false, reason: `scope ${claims.scope}`, iss: claims.iss };
    const now = Math.floor(Date.now() / 1000);
    if (!claims.exp || !claims.iat || claims.exp <= now || claims.iat > now + 60 || claims.exp - claims.iat > 3600) {
      return { ok: false, reason: 'Invalid JWT: token lifetime', iss: claims.iss };
    }
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    tokens.add(token);
    return { ok: true, token };
  };

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://double');
      const body = await readBody(req);
      if (req.method === 'POST' && url.pathname === '/token') {
        const result = exchange(new URLSearchParams(body.toString('utf8')));
        exchanges.push(result.ok ? { ok: true, iss: opts.clientEmail } : { ok: false, reason: result.reason, iss: result.iss });
        if (!result.ok) return jsonReply(res, 400, { error: 'invalid_grant', error_description: result.reason });
        return jsonReply(res, 200, { access_token: result.token, expires_in: 3599, token_type: 'Bearer' });
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const authorized = bearer !== undefined && tokens.has(bearer);
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorized });
      if (!authorized) return apiError(res, 401, 'authError', 'Request had invalid authentication credentials.');

      const m = /^\/(upload\/|download\/)?storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(url.pathname);
      if (!m) return apiError(res, 404, 'notFound', 'Not Found');
      const [, kind, bucket = '', rawName] = m;
      if (!buckets.has(bucket)) return apiError(res, 404, 'notFound', 'The specified bucket does not exist.');
      const name = rawName === undefined ? undefined : decodeURIComponent(rawName);

      if (req.method === 'POST' && kind === 'upload/' && name === undefined) {
        if (url.searchParams.get('uploadType') !== 'multipart') return apiError(res, 400, 'invalid', 'only multipart uploads are served');
        const [meta, media] = multipartParts(body, req.headers['content-type'] ?? '');
        if (!meta || !media) return apiError(res, 400, 'invalid', 'multipart upload needs metadata and media');
        const metadata = JSON.parse(meta.data.toString('utf8')) as { name?: string; contentType?: string; metadata?: Record<string, string> };
        const objectName = url.searchParams.get('name') ?? metadata.name;
        if (!objectName) return apiError(res, 400, 'required', 'Required object name');
        const stored: StoredGcsObject = {
          data: media.data,
          contentType: metadata.contentType ?? media.headers['content-type'] ?? 'application/octet-stream',
          metadata: metadata.metadata,
          created: new Date().toISOString(),
        };
        objects.set(`${bucket}/${objectName}`, stored);
        return jsonReply(res, 200, resource(bucket, objectName, stored));
      }
      if (req.method === 'GET' && name === undefined) {
        const prefix = url.searchParams.get('prefix') ?? '';
        const items = [...objects.entries()]
          .filter(([k]) => k.startsWith(`${bucket}/${prefix}`))
          .map(([k, o]) => resource(bucket, k.slice(bucket.length + 1), o))
          .sort((a, b) => a.name.localeCompare(b.name));
        return jsonReply(res, 200, { kind: 'storage#objects', items });
      }
      const object = name === undefined ? undefined : objects.get(`${bucket}/${name}`);
      if (req.method === 'DELETE' && name !== undefined) {
        objects.delete(`${bucket}/${name}`);
        return res.writeHead(204).end();
      }
      if (req.method === 'GET' && name !== undefined) {
        if (!object) return apiError(res, 404, 'notFound', `No such object: ${bucket}/${name}`);
        if (url.searchParams.get('alt') !== 'media') return jsonReply(res, 200, resource(bucket, name, object));
        res.writeHead(200, {
          'content-type': object.contentType,
          'content-length': String(object.data.length),
          'x-goog-hash': `crc32c=${crc32c(object.data)},md5=${createHash('md5').update(object.data).digest('base64')}`,
          'x-goog-generation': '1',
          'x-goog-stored-content-length': String(object.data.length),
        });
        return res.end(object.data);
      }
      return apiError(res, 405, 'methodNotAllowed', `${req.method} ${url.pathname} is not served by the double`);
    } catch (err) {
      apiError(res, 500, 'backendError', (err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiEndpoint: base,
    tokenUrl: `${base}/token`,
    objects,
    requests,
    exchanges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
