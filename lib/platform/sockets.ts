/**
 * The live-event singletons of one function instance: the connection store and the management API
 * poster (the publisher is wired with the task services, lib/platform/tasks.ts).
 */
import { config } from '../config.js';
import { SocketConnections } from '../events/connections.js';
import { managementApiClient, managementApiPoster } from '../events/management-api.js';
import type { PostToConnection } from '../events/socket-server.js';
import { once, stateStore } from './clients.js';

export const socketConnections = once(() => new SocketConnections(stateStore()));

export const postToConnection = once((): PostToConnection => {
  const c = config();
  if (!c.SOCKET_ENDPOINT) throw new Error('SOCKET_ENDPOINT is not set: the socket functions need the WebSocket API management endpoint');
  return managementApiPoster(managementApiClient({ region: c.AWS_REGION, endpoint: c.SOCKET_ENDPOINT }));
});
