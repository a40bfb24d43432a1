/**
 * Scheduled: pings every socket connection (Engine.IO `2`), forgets those that are gone, hangs up on
 * those that have not subscribed within SOCKET_SUBSCRIBE_SECONDS and ends subscriptions whose
 * credential ended (lib/file-api/events/socket-server.ts).
 */
import { config } from '#lib/kernel/config.js';
import { pingAll } from '#lib/file-api/events/socket-server.js';
import { bearerCredentials } from '#lib/wiring/credentials.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { closeConnection, postToConnection, socketConnections } from '#lib/wiring/sockets.js';

export async function handler(): Promise<{ pinged: number; gone: number; idle: number; ended: number }> {
  return pingAll({
    connections: socketConnections(),
    post: postToConnection(),
    disconnect: closeConnection(),
    credentials: bearerCredentials(),
    subscribeSeconds: config().SOCKET_SUBSCRIBE_SECONDS,
    log: rootLogger().child({ function: 'socketPing' }),
  });
}
