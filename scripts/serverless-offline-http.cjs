/**
 * Preloaded (`node --require`) into the serverless-offline process that the local platform starts
 * (lib/local/platform.ts), to make its HTTP server answer as API Gateway does in one respect.
 *
 * serverless-offline serves the HTTP API with hapi, and hapi gzips every response over 1 KB for a
 * client that accepts gzip, which every fetch client does. An API Gateway HTTP API never compresses
 * a response: locally clients got an encoding the cloud never sends, and every response paid for
 * the compression (the creature catalogue, 62 KB of JSON, went from about 100 to about 280 requests a
 * second through serverless-offline once it was off; `npm run bench` shows the figures).
 * serverless-offline has no setting for it, so this hands hapi `compression: false` before
 * serverless-offline imports it (an ES module importing a CommonJS one reads its exports then).
 *
 * And idle client connections stay open 65 s, as behind API Gateway, instead of Node's 5 s: with 5 s,
 * a client that reuses a connection just as the server drops it gets "other side closed" (undici
 * reuses idle connections for up to 4 s by its own clock, which runs late on a loaded machine).
 */
'use strict';

const path = require('node:path');

const offlineDir = path.join(__dirname, '..', 'node_modules', 'serverless-offline');
const hapi = require(require.resolve('@hapi/hapi', { paths: [offlineDir] }));
const HapiServer = hapi.Server;

const IDLE_CONNECTION_MS = 65_000;

function Server(options) {
  const server = new HapiServer({ ...options, compression: false });
  server.listener.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.listener.headersTimeout = IDLE_CONNECTION_MS + 1000;
  return server;
}

hapi.Server = Server;
hapi.server = Server;
