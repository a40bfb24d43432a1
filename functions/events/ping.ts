/**
 * Scheduled: pings every socket connection (Engine.IO `2`), forgets those that are gone and hangs up on
 * those that have not subscribed within SOCKET_SUBSCRIBE_SECONDS.
 */
import { config } from '#lib/config.js';
import { pingAll } from '#lib/events/socket-server.js';
import { rootLogger } from '#lib/platform/logger.js';
import { closeConnection, postToConnection, socketConnections } from '#lib/platform/sockets.js';

export async function handler(): Promise<{ pinged: number; gone: number; idle: number }> {
  return pingAll({
    connections: socketConnections(),
    post: postToConnection(),
    disconnect: closeConnection(),
    subscribeSeconds: config().SOCKET_SUBSCRIBE_SECONDS,
    log: rootLogger().child({ function: 'socketPing' }),
  });
}
