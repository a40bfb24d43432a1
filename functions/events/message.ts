/**
 * `$default` of the WebSocket API: every frame a socket.io client sends (lib/file-api/events/socket-server.ts).
 * Never fails: a failure is logged, the client gets no frame it would take for a protocol error.
 */
import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { onFrame } from '#lib/file-api/events/socket-server.js';
import { bearerCredentials } from '#lib/wiring/credentials.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { postToConnection, socketConnections } from '#lib/wiring/sockets.js';
import { taskStore } from '#lib/wiring/tasks.js';
import { listeners } from '#lib/wiring/webhooks.js';

export async function handler(event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> {
  const { connectionId } = event.requestContext;
  const log = rootLogger().child({ connectionId });
  try {
    const body = event.isBase64Encoded ? '' : (event.body ?? '');
    await onFrame(connectionId, body, { connections: socketConnections(), post: postToConnection(), credentials: bearerCredentials(), tasks: taskStore(), listeners: listeners(), log });
  } catch (err) {
    log.error('socket frame failed', { error: err });
  }
  return { statusCode: 200 };
}
