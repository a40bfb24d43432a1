/**
 * The local backends keep idle client connections 65 s, as AWS endpoints do for far longer than Node's
 * 5 s default. The SDK clients reuse a pooled connection without knowing the server's limit; at 5 s a
 * connection closed by the server just as a request is written on it fails with ECONNRESET, which a
 * loaded machine makes common.
 */
import type { Server } from 'node:http';

export const IDLE_CONNECTION_MS = 65_000;

export function keepIdleConnections<S extends Server>(server: S): S {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  // Node requires the headers timeout to be above the keep-alive timeout.
  server.headersTimeout = IDLE_CONNECTION_MS + 1000;
  return server;
}
