/**
 * How long the platform waits on its own backends (DynamoDB, SQS, the WebSocket management API,
 * Lambda) before a call is given up and retried by the SDK: a connection that never opens, or a
 * request that gets no byte back for this long (an idle timeout, not a cap on the whole call).
 *
 * Without them the SDK waits as long as the socket lives. One stuck call then holds what awaits it:
 * a task run until its function's timeout (15 minutes), a live event and every step behind it.
 * The calls answer in milliseconds; these limits only end calls that will not answer.
 */
export const BACKEND_CALL_LIMITS = {
  connectionTimeout: 5_000,
  // The socket's idle time (@smithy/node-http-handler 4: `requestTimeout` caps the whole call and
  // only warns unless told to throw).
  socketTimeout: 15_000,
} as const;
