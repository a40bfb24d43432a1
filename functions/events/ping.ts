/** Scheduled: pings every socket connection (Engine.IO `2`) and forgets those that are gone. */
import { pingAll } from '#lib/events/socket-server.js';
import { rootLogger } from '#lib/platform/logger.js';
import { postToConnection, socketConnections } from '#lib/platform/sockets.js';

export async function handler(): Promise<{ pinged: number; gone: number }> {
  return pingAll({ connections: socketConnections(), post: postToConnection(), log: rootLogger().child({ function: 'socketPing' }) });
}
