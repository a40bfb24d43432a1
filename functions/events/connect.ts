/**
 * `$connect` of the WebSocket API: records the connection and invokes the hello function
 * asynchronously to send Engine.IO's open packet once the connection is open (lib/file-api/events/socket-server.ts).
 * No authentication here: the SDK sends its credential with each subscription. So a connection that
 * has not subscribed yet is counted, per source address and in all, and the connect over either cap
 * (SOCKET_PENDING_PER_ADDRESS, SOCKET_PENDING_TOTAL) is refused: the gateway answers the handshake 429.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { config } from '#lib/kernel/config.js';
import { BACKEND_CALL_LIMITS } from '#lib/kernel/call-limits.js';
import { once } from '#lib/wiring/clients.js';
import { rootLogger } from '#lib/kernel/root-logger.js';
import { socketConnections } from '#lib/wiring/sockets.js';

const lambda = once(() => new LambdaClient({ region: config().AWS_REGION, endpoint: config().AWS_ENDPOINT_URL_LAMBDA, requestHandler: BACKEND_CALL_LIMITS }));

export async function handler(event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> {
  const { connectionId } = event.requestContext;
  const address = (event.requestContext as { identity?: { sourceIp?: unknown } }).identity?.sourceIp;
  if (!(await socketConnections().open(connectionId, { address: typeof address === 'string' ? address : undefined }))) {
    rootLogger().warn('socket refused: too many connections not subscribed', { connectionId, address });
    return { statusCode: 429 };
  }
  await lambda().send(new InvokeCommand({ FunctionName: config().SOCKET_HELLO_FUNCTION, InvocationType: 'Event', Payload: JSON.stringify({ connectionId }) }));
  rootLogger().info('socket connected', { connectionId });
  return { statusCode: 200 };
}
