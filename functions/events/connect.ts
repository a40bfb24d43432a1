/**
 * `$connect` of the WebSocket API: records the connection and invokes the hello function
 * asynchronously to send Engine.IO's open packet once the connection is open (lib/events/socket-server.ts).
 * No authentication here: the SDK sends its credential with each subscription.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import { config } from '#lib/config.js';
import { BACKEND_CALL_LIMITS } from '#lib/platform/call-limits.js';
import { once } from '#lib/platform/clients.js';
import { rootLogger } from '#lib/platform/logger.js';
import { socketConnections } from '#lib/platform/sockets.js';

const lambda = once(() => new LambdaClient({ region: config().AWS_REGION, endpoint: config().AWS_ENDPOINT_URL_LAMBDA, requestHandler: BACKEND_CALL_LIMITS }));

export async function handler(event: APIGatewayProxyWebsocketEventV2): Promise<APIGatewayProxyResultV2> {
  const { connectionId } = event.requestContext;
  await socketConnections().open(connectionId);
  await lambda().send(new InvokeCommand({ FunctionName: config().SOCKET_HELLO_FUNCTION, InvocationType: 'Event', Payload: JSON.stringify({ connectionId }) }));
  rootLogger().info('socket connected', { connectionId });
  return { statusCode: 200 };
}
