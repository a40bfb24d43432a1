/**
 * The live-event singletons of one function instance: the connection store and the management API
 * poster and closer (the publisher is wired with the task services, lib/wiring/tasks.ts).
 */
import { config } from '../kernel/config.js';
import { SocketConnections } from '../file-api/events/connections.js';
import { managementApiClient, managementApiCloser, managementApiPoster } from '../file-api/events/management-api.js';
import type { CloseConnection, PostToConnection } from '../file-api/events/socket-server.js';
import { once, stateStore } from './clients.js';

export const socketConnections = once(
  () => new SocketConnections(stateStore(), { pendingPerAddress: config().SOCKET_PENDING_PER_ADDRESS, pendingTotal: config().SOCKET_PENDING_TOTAL }),
);

const managementApi = once(() => {
  const c = config();
  if (!c.SOCKET_ENDPOINT) throw new Error('SOCKET_ENDPOINT is not set: the socket functions need the WebSocket API management endpoint');
  return managementApiClient({ region: c.AWS_REGION, endpoint: c.SOCKET_ENDPOINT });
});

export const postToConnection = once((): PostToConnection => managementApiPoster(managementApi()));

export const closeConnection = once((): CloseConnection => managementApiCloser(managementApi()));
