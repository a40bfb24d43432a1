/** Invoked by `$connect` (asynchronously): sends Engine.IO's open packet once the connection is open. */
import { config } from '#lib/kernel/config.js';
import { hello } from '#lib/file-api/events/socket-server.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { postToConnection } from '#lib/wiring/sockets.js';

export async function handler(event: { connectionId: string }): Promise<void> {
  const c = config();
  await hello(event.connectionId, { pingSeconds: c.SOCKET_PING_SECONDS, pingTimeoutSeconds: c.SOCKET_PING_TIMEOUT_SECONDS }, { post: postToConnection(), log: rootLogger() });
}
