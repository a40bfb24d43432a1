/**
 * The forward proxy every Chromium request goes through (`--proxy-server`, loopback not bypassed, the
 * browser's own DNS turned off by `--host-resolver-rules`). The proxy resolves and dials with the
 * service's one address guard: plain HTTP through the guarded agent, HTTPS and WebSockets as CONNECT
 * tunnels to an address the guarded lookup passed (and the connected peer checked again). So what
 * the page asks for, on every redirect and from every frame or worker, reaches only addresses
 * import/url may reach; a refused request gets a 403 from the proxy and never leaves the machine.
 */
import http from 'node:http';
import net from 'node:net';
import { createGuardedAgents, createGuardedLookup } from '../../adapters/net/guarded-fetch.js';
import { assertPublicAddress, checkUrl, ForbiddenAddressError, parseHost, type AddressPolicy } from '../../adapters/net/address-policy.js';

export interface GuardedProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Told about every refused request (host as asked, and why). */
  onBlocked?: (host: string, reason: string) => void;
  /** Sockets idle for this long are closed. Default 60 s. */
  idleTimeoutMs?: number;
}

/** Hop-by-hop headers: never forwarded (RFC 9110 §7.6.1), nor the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function forwardHeaders(raw: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (HOP_BY_HOP.has(name.toLowerCase())) continue;
    const value = raw[i + 1]!;
    const seen = out[name];
    out[name] = seen === undefined ? value : [...([] as string[]).concat(seen), value];
  }
  return out;
}

/** `host:port` of a CONNECT request (`[v6]:port` too). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (!(port > 0 && port < 65536)) return undefined;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

const reasonOf = (err: unknown) => (err instanceof ForbiddenAddressError ? err.message : (err as Error).message);

export async function startGuardedProxy(policy: AddressPolicy, opts: ProxyOptions = {}): Promise<GuardedProxy> {
  const idle = opts.idleTimeoutMs ?? 60_000;
  const { httpAgent } = createGuardedAgents(policy, { keepAlive: true });
  const refuse = (host: string, err: unknown) => opts.onBlocked?.(host, reasonOf(err));

  const server = http.createServer((req, res) => {
    let url: URL;
    try {
      url = checkUrl(req.url ?? '', policy);
      if (url.protocol !== 'http:') throw new Error('only http is proxied without CONNECT');
    } catch (err) {
      refuse(req.url ?? '', err);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Refused by the address guard.');
      req.resume();
      return;
    }
    let upstream: http.ClientRequest;
    try {
      upstream = http.request({
        protocol: 'http:',
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || 80,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: forwardHeaders(req.rawHeaders),
        agent: httpAgent,
        timeout: idle,
      });
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request.');
      req.resume();
      return;
    }
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardHeaders(answer.rawHeaders));
      answer.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', (err) => {
      if (err instanceof ForbiddenAddressError || (err as NodeJS.ErrnoException).code === 'FORBIDDEN_ADDRESS') refuse(url.host, err);
      if (!res.headersSent) res.writeHead(err instanceof ForbiddenAddressError ? 403 : 502, { 'content-type': 'text/plain' }).end();
      else res.destroy();
    });
    req.on('error', () => upstream.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => {});
    client.setTimeout(idle, () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    const fail = (status: string) => client.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`);
    if (!target) return fail('400 Bad Request');
    const { host, port } = target;
    try {
      const parsed = parseHost(host);
      assertPublicAddress(parsed.kind === 'ip' ? parsed.address : host, policy, { host, port });
    } catch (err) {
      refuse(host, err);
      return fail('403 Forbidden');
    }
    const upstream = net.connect({ host, port, lookup: createGuardedLookup(policy, { port }) });
    upstream.setTimeout(idle, () => upstream.destroy());
    upstream.once('connect', () => {
      try {
        // The address actually dialled, whatever the name resolved to.
        assertPublicAddress(upstream.remoteAddress ?? '', policy, { host, port });
      } catch (err) {
        refuse(host, err);
        upstream.destroy();
        return fail('403 Forbidden');
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      const forbidden = err instanceof ForbiddenAddressError || (err as NodeJS.ErrnoException).code === 'FORBIDDEN_ADDRESS';
      if (forbidden) refuse(host, err);
      if (client.writable && !upstream.readableDidRead) fail(forbidden ? '403 Forbidden' : '502 Bad Gateway');
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });

  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The proxy must never keep a function instance alive on its own.
  server.unref();
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        httpAgent.destroy();
      }),
  };
}
