/**
 * A mocha require file that points the `cloudconvert` SDK's own integration tests at this service:
 * run from a copy of the SDK repository (its built/lib/CloudConvert.js is the module the tests import).
 *
 * - `callWithBase` maps every host the SDK builds (api., sync.api., api.sandbox., {region}.api.) to
 *   SERVICE_URL as the README shows (the same mapping as test/support/cloudconvert.ts);
 * - before the first `subscribe`, the instance's `socket` becomes `io(SOCKET_URL, { transports: ['websocket'] })`
 *   (the SDK hard-codes socketio.cloudconvert.com); SOCKET_URL defaults to SERVICE_URL.
 *
 * Used by scripts/sdk-suite/run.sh; see there for the whole procedure.
 */
'use strict';
const path = require('node:path');
const { URL } = require('node:url');

const service = (process.env.SERVICE_URL || 'http://localhost:4000').replace(/\/+$/, '');
const socketUrl = process.env.SOCKET_URL || service;
const sdkDir = process.env.SDK_DIR || process.cwd();
const CloudConvert = require(path.join(sdkDir, 'built/lib/CloudConvert.js')).default;
const { io } = require(require.resolve('socket.io-client', { paths: [sdkDir] }));

/** `[region.][sync.]api[.sandbox].cloudconvert.com/v2/` → `{service}[/sandbox|/region][/sync]/v2/`. */
function localBase(sdkBase) {
  const labels = new URL(sdkBase).hostname.split('.');
  const region = labels[0] === 'api' || labels[0] === 'sync' ? '' : `/${labels[0]}`;
  const where = labels.includes('sandbox') ? '/sandbox' : region;
  return `${service}${where}${labels.includes('sync') ? '/sync' : ''}/v2/`;
}

const callWithBase = CloudConvert.prototype.callWithBase;
CloudConvert.prototype.callWithBase = function (base, method, route, parameters, options) {
  return callWithBase.call(this, localBase(base), method, route, parameters, options);
};

const subscribe = CloudConvert.prototype.subscribe;
CloudConvert.prototype.subscribe = function (channel, event, callback) {
  if (!this.socket) {
    this.socket = io(socketUrl, { transports: ['websocket'] });
    this.subscribedChannels = new Map();
  }
  return subscribe.call(this, channel, event, callback);
};
