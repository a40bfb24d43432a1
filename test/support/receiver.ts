/**
 * A local HTTP server that records every request (method, path, headers, exact body bytes) and
 * answers from a script: a list of statuses used in turn (the last one repeats), 200 by default.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Statuses to answer with, in turn, per path (`*` for any); the last one repeats. */
  script(path: string, statuses: number[]): void;
  /** Resolves once `count` requests to `path` (all when omitted) have arrived. */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, number[]>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const script = scripts.get(path) ?? scripts.get('*');
      const status = script ? (script.length > 1 ? script.shift()! : (script[0] ?? 200)) : 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const matching = (path?: string) => requests.filter((r) => path === undefined || r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    waitFor: (count, path, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (matching(path).length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching(path));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited ${timeoutMs} ms for ${count} request(s) to ${path ?? 'any path'}, got ${matching(path).length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
