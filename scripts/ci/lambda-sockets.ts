/**
 * The WebSocket API around the packaged socket functions, for scripts/ci/lambda-artifacts.ts: what API
 * Gateway and Lambda do for them, on one local HTTP server.
 *
 * - The management API (`POST /@connections/{id}`): frames to a connection the gateway has opened
 *   (its `$connect` returned 200) are recorded; to any other, 410 Gone, as during `$connect` in AWS.
 * - Lambda's Invoke (`POST /2015-03-31/functions/{name}/invocations`), by which the connect function
 *   starts the hello function: `Event` invocations answer 202 and run on.
 *
 * Then a scenario: a client connects, receives the open packet, connects to the namespace, subscribes
 * to its user's task channel (and is refused another user's); the job scenario that follows must
 * reach it with `task.finished` frames from the step artifacts; it disconnects.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Invocable {
  invoke(event: unknown): Promise<{ ok: true; payload: unknown } | { ok: false; error: string }>;
}

export interface SocketStubs {
  url: string;
  /** The gateway opened the connection (its `$connect` answered). */
  open(connectionId: string): void;
  frames(connectionId: string): string[];
  close(): Promise<void>;
}

export async function startSocketStubs(functionNamed: (name: string) => Invocable | undefined, problems: string[]): Promise<SocketStubs> {
  const open = new Set<string>();
  const frames = new Map<string, string[]>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://local');
    const connection = /^\/@connections\/([^/]+)$/.exec(url.pathname);
    if (connection) {
      const id = decodeURIComponent(connection[1]!);
      if (!open.has(id)) return res.writeHead(410, { 'content-type': 'application/json' }).end('{"message":"Gone"}');
      if (req.method === 'DELETE') {
        open.delete(id);
        return res.writeHead(204).end();
      }
      frames.set(id, [...(frames.get(id) ?? []), body]);
      return res.writeHead(200).end();
    }
    const invocation = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    const fn = invocation && functionNamed(decodeURIComponent(invocation[1]!));
    if (!fn) return res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' }).end('{"Message":"Function not found"}');
    const event = body ? JSON.parse(body) : {};
    if (req.headers['x-amz-invocation-type'] === 'Event') {
      void fn.invoke(event).then((outcome) => {
        if (!outcome.ok) problems.push(`${invocation[1]} (asynchronous invocation): ${outcome.error}`);
      });
      return res.writeHead(202).end();
    }
    const outcome = await fn.invoke(event);
    res.writeHead(200, { 'content-type': 'application/json', ...(outcome.ok ? {} : { 'x-amz-function-error': 'Unhandled' }) });
    res.end(JSON.stringify(outcome.ok ? (outcome.payload ?? null) : { errorMessage: outcome.error }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: (id) => void open.add(id),
    frames: (id) => frames.get(id) ?? [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const wsEvent = (connectionId: string, routeKey: string, body?: string) => ({
  requestContext: { connectionId, routeKey, identity: { sourceIp: '127.0.0.1' }, eventType: routeKey === '$connect' ? 'CONNECT' : routeKey === '$disconnect' ? 'DISCONNECT' : 'MESSAGE', stage: 'dev', domainName: 'local', apiId: 'local', requestId: connectionId, connectedAt: Date.now(), requestTimeEpoch: Date.now(), messageDirection: 'IN', extendedRequestId: connectionId, messageId: connectionId },
  isBase64Encoded: false,
  ...(body === undefined ? {} : { body }),
});

async function until(what: string, read: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Connects and subscribes one client; the returned check runs after the jobs, the returned close disconnects it. */
export async function socketScenario(routes: Map<string, Invocable>, stubs: SocketStubs, apiKey: string, userId: number) {
  const route = (key: string) => {
    const fn = routes.get(key);
    if (!fn) throw new Error(`the WebSocket API has no ${key} route`);
    return fn;
  };
  const send = async (key: string, body?: string) => {
    const outcome = await route(key).invoke(wsEvent(id, key, body));
    if (!outcome.ok) throw new Error(`${key}: ${outcome.error}`);
    if ((outcome.payload as { statusCode?: number } | null)?.statusCode !== 200) throw new Error(`${key} answered ${JSON.stringify(outcome.payload)}`);
  };
  const id = 'ci-socket-1';
  await send('$connect');
  stubs.open(id);
  await until('the open packet', () => stubs.frames(id).some((f) => f.startsWith('0{')));
  await send('$default', '40');
  await until('the namespace connect answer', () => stubs.frames(id).some((f) => f.startsWith('40{')));
  const subscribe = (channel: string) => send('$default', `42${JSON.stringify(['subscribe', { channel, auth: { headers: { Authorization: `Bearer ${apiKey}` } } }])}`);
  await subscribe(`private-user.${userId}.tasks`);
  await subscribe(`private-user.${userId + 1}.tasks`);
  await until('the refusal', () => stubs.frames(id).includes(`42["subscription_error","private-user.${userId + 1}.tasks",403]`));
  return {
    /** After jobs ran: their tasks' ends reached the subscriber. */
    async heardTasks(): Promise<number> {
      await until('a task.finished frame', () => stubs.frames(id).some((f) => f.startsWith('42["task.finished"')));
      return stubs.frames(id).filter((f) => f.startsWith('42["task.finished"')).length;
    },
    disconnect: () => send('$disconnect'),
  };
}
