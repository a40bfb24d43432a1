/** The local S3 front's way to s3rver: requests passed through with their headers cleaned, answers piped back. */
import {
  Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { trimEnd } from '../../lib/kernel/text.js';
import { isPathStyleHost } from './confine.js';
import { S3PostError, sendS3Error } from './errors.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Request headers for s3rver: hop-by-hop ones (and those `Connection` names) and `Expect` removed, and a
 * Host that s3rver would read a bucket from (anything but an address or localhost) replaced by its own.
 */
export function forwardHeaders(headers: IncomingHttpHeaders, targetHost: string): OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || name === 'expect') continue;
    out[name] = value;
  }
  if (!isPathStyleHost(headers.host)) out.host = targetHost;
  return out;
}

/** Response headers from s3rver, raw (case and repetitions kept), without hop-by-hop ones. */
function backwardHeaders(res: IncomingMessage): string[] {
  const listed = new Set(
    String(res.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: string[] = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed.has(lower)) continue;
    out.push(name, res.rawHeaders[i + 1]!);
  }
  return out;
}

/** s3rver at `target` (its base URL), over one keep-alive agent. */
export class S3Upstream {
  readonly target: URL;
  readonly targetPrefix: string;
  readonly agent = new Agent({ keepAlive: true });

  constructor(target: string) {
    this.target = new URL(target);
    this.targetPrefix = trimEnd(this.target.pathname, '/');
  }

  /** Sends one request to s3rver and pipes its answer to `res`; `transform` may rewrite a small body. */
  request(
    req: IncomingMessage,
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
    body: Readable | null,
    transform?: (status: number, headers: string[], body: Buffer) => { headers: string[]; body: Buffer } | undefined,
  ): Promise<void> {
    const { target, targetPrefix, agent } = this;
    return new Promise<void>((resolve, reject) => {
      const up = httpRequest(
        { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: targetPrefix + (req.url ?? '/'), headers, agent },
        (upRes) => {
          const status = upRes.statusCode ?? 502;
          let outHeaders = backwardHeaders(upRes);
          const rewrite = transform && /xml/i.test(String(upRes.headers['content-type'] ?? '')) && Number(upRes.headers['content-length'] ?? Infinity) < 64 * 1024;
          if (rewrite) {
            const chunks: Buffer[] = [];
            upRes.on('data', (c: Buffer) => chunks.push(c));
            upRes.on('error', reject);
            upRes.on('end', () => {
              const original = Buffer.concat(chunks);
              const changed = transform(status, outHeaders, original);
              const buf: Buffer = changed?.body ?? original;
              if (changed) {
                outHeaders = changed.headers.map((h, i) => (i % 2 === 1 && changed.headers[i - 1]!.toLowerCase() === 'content-length' ? String(buf.length) : h));
              }
              res.writeHead(status, upRes.statusMessage, outHeaders);
              res.end(buf, () => resolve());
            });
            return;
          }
          res.writeHead(status, upRes.statusMessage, outHeaders);
          pipeline(upRes, res).then(resolve, reject);
        },
      );
      up.on('error', reject);
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      if (body) pipeline(body, up).catch((err: unknown) => up.destroy(err instanceof Error ? err : undefined));
      else up.end();
    });
  }

  /** The bucket's CORS answer for a POST from this origin, asked of s3rver as a preflight would be. */
  async corsHeaders(bucket: string, origin: string): Promise<OutgoingHttpHeaders> {
    const { target, targetPrefix } = this;
    try {
      const answer = await fetch(`${target.origin}${targetPrefix}/${encodeURIComponent(bucket)}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
        signal: AbortSignal.timeout(2000),
      });
      await answer.arrayBuffer();
      const allow = answer.headers.get('access-control-allow-origin');
      return allow ? { 'Access-Control-Allow-Origin': allow, Vary: 'Origin' } : {};
    } catch {
      return {};
    }
  }

  /** Passes a request through to s3rver (its body streamed, or `buffered` when it was read first). */
  async proxy(req: IncomingMessage, res: ServerResponse, log: (line: string) => void, buffered?: Buffer): Promise<void> {
    const headers = forwardHeaders(req.headers, this.target.host);
    const hasBody = buffered !== undefined || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody && ['POST', 'PUT', 'PATCH'].includes(req.method ?? '')) headers['content-length'] = '0';
    if (buffered !== undefined) {
      delete headers['transfer-encoding'];
      headers['content-length'] = String(buffered.length);
    }
    try {
      await this.request(req, res, headers, buffered !== undefined ? Readable.from([buffered]) : hasBody ? req : null);
    } catch (err) {
      if (res.headersSent || req.destroyed) {
        res.destroy();
        return;
      }
      log(`s3-front: ${req.method} ${req.url} failed: ${(err as Error).message}`);
      await sendS3Error(req, res, new S3PostError(503, 'ServiceUnavailable', 'Please reduce your request rate.'));
    }
  }

  close(): void {
    this.agent.destroy();
  }
}
