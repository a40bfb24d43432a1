/** `$disconnect` of the WebSocket API: forgets the connection and its subscriptions. */
import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { socketConnections } from '#lib/wiring/sockets.js';

export async function handler(event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> {
  const { connectionId } = event.requestContext;
  await socketConnections().close(connectionId);
  rootLogger().info('socket disconnected', { connectionId });
  return { statusCode: 200 };
}
