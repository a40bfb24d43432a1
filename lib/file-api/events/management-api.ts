/**
 * Posts to socket connections through the API Gateway management API (PostToConnection), the only
 * way a Lambda function reaches a WebSocket client, and closes them (DeleteConnection). The endpoint is the stage's
 * (`https://{api id}.execute-api.{region}.amazonaws.com/{stage}`); locally serverless-offline serves
 * the same API at `/@connections/{id}` on its websocket port.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { BACKEND_CALL_LIMITS } from '../../kernel/call-limits.js';
import type { CloseConnection, PostToConnection } from './socket-server.js';

/** Gone (410): the client left, or the connection is not open yet (during `$connect`). */
const isGone = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'GoneException' || e?.$metadata?.httpStatusCode === 410;
};

export function managementApiPoster(client: ApiGatewayManagementApiClient): PostToConnection {
  return async (connectionId, frame) => {
    try {
      await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(frame) }));
      return true;
    } catch (err) {
      if (isGone(err)) return false;
      throw err;
    }
  };
}

/** Closes a connection at the gateway (DeleteConnection); one already gone is no error. */
export function managementApiCloser(client: ApiGatewayManagementApiClient): CloseConnection {
  return async (connectionId) => {
    try {
      await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  };
}

export function managementApiClient(opts: { region: string; endpoint: string }): ApiGatewayManagementApiClient {
  return new ApiGatewayManagementApiClient({ region: opts.region, endpoint: opts.endpoint, requestHandler: BACKEND_CALL_LIMITS });
}
