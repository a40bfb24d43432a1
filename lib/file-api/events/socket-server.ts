/**
 * The socket.io server of live events, as API Gateway WebSocket route handlers (functions/events/):
 *
 * - `$connect` records the connection and asks the hello function (invoked asynchronously) to send
 *   Engine.IO's open packet: nothing can be sent to a connection before `$connect` has returned (the
 *   management API answers Gone), and the client sends nothing before it has the open packet.
 * - hello posts the open packet, retrying while the connection is not open yet.
 * - `$default` gets every frame the client sends: `40` (connect to the default namespace) is answered
 *   `40{"sid":…}`; `3` (pong) needs nothing; `42["subscribe",{channel,auth}]` subscribes or answers
 *   `42["subscription_error",channel,status]` (Laravel Echo Server's event, whose protocol the SDK
 *   speaks) and nothing else; `42["unsubscribe",{channel}]` unsubscribes; the rest is ignored.
 * - `$connect` refuses (429) a connection over the caps of connections not subscribed yet (./connections.ts).
 * - `$disconnect` forgets the connection and its subscriptions.
 * - ping (scheduled) posts `2` to every connection, forgetting those the gateway says are gone, and
 *   hangs up on those that have not subscribed within SOCKET_SUBSCRIBE_SECONDS.
 *
 * No state lives in a function between frames: the sid is random and never checked (the gateway's
 * connection id is the session), subscriptions are in the state table (./connections.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../kernel/log.js';
import type { Credentials } from '../../http/credentials.js';
import type { Listeners } from '../records/listeners.js';
import { CONNECTION_SHARDS, parseCredentialMember, type OpenConnection, type SocketConnections, type SubscriptionRecord } from './connections.js';
import { SubscriptionCredentials } from './credential-check.js';
import { connectedFrame, connectErrorFrame, DISCONNECT_FRAME, eventFrame, MAX_FRAME_BYTES, openFrame, parseClientFrame, PING_FRAME, PONG_FRAME } from './protocol.js';
import { authorizeSubscription, channelOf, type SubscribeDeps } from './subscribe.js';

/** Sends one text frame to a connection; false when the gateway says the connection is gone. */
export type PostToConnection = (connectionId: string, frame: string) => Promise<boolean>;

/** Closes a connection at the gateway (then its `$disconnect` comes); one already gone is no error. */
export type CloseConnection = (connectionId: string) => Promise<void>;

/**
 * Ends a connection from the server's side: socket.io's disconnect of the namespace (a client then
 * neither reconnects nor waits), the gateway's close (for a client that ignores it), its records.
 */
export async function hangUp(connectionId: string, deps: { connections: Pick<SocketConnections, 'close'>; post: PostToConnection; disconnect: CloseConnection }): Promise<void> {
  // The records first: the room of a connection not subscribed is given back before the client hears.
  await deps.connections.close(connectionId);
  if (await deps.post(connectionId, DISCONNECT_FRAME)) await deps.disconnect(connectionId);
}

/**
 * Ends subscriptions whose credential ended: each gets `subscription_error` (channel, 401), as a
 * subscribe with that credential would now, and is removed; a connection left with none is hung up on.
 * Returns the connections hung up on. Never throws (a failure is logged; the next event or ping tries again).
 */
export async function endSubscriptions(
  ended: SubscriptionRecord[],
  deps: { connections: Pick<SocketConnections, 'close' | 'drop'>; post: PostToConnection; disconnect: CloseConnection; log: Logger },
): Promise<string[]> {
  if (!ended.length) return [];
  try {
    await Promise.all(ended.map((sub) => deps.post(sub.connectionId, eventFrame('subscription_error', sub.channel, 401))));
    const emptied = await deps.connections.drop(ended);
    await Promise.all(emptied.map((id) => hangUp(id, deps)));
    deps.log.info('socket subscriptions ended with their credential', { keyIds: [...new Set(ended.map((s) => s.keyId ?? null))], subscriptions: ended.length, closed: emptied });
    return emptied;
  } catch (err) {
    deps.log.warn('socket subscriptions of an ended credential not all removed', { error: err });
    return [];
  }
}

export interface SocketServerDeps extends SubscribeDeps {
  connections: SocketConnections;
  /** Marked before a subscription is stored, so that events look for it (lib/file-api/records/listeners.ts). */
  listeners?: Pick<Listeners, 'socketsOpen'>;
  post: PostToConnection;
  log: Logger;
}

export const newSid = () => randomBytes(15).toString('base64url');

/** One frame from a client. */
export async function onFrame(connectionId: string, body: string, deps: SocketServerDeps): Promise<void> {
  const frame = parseClientFrame(body);
  switch (frame.kind) {
    case 'connect':
      await deps.post(connectionId, frame.namespace === '/' ? connectedFrame(newSid()) : connectErrorFrame(frame.namespace));
      return;
    case 'ping':
      await deps.post(connectionId, PONG_FRAME);
      return;
    case 'event':
      if (frame.namespace !== '/') return;
      if (frame.name === 'subscribe') await subscribe(connectionId, frame.args[0], deps);
      else if (frame.name === 'unsubscribe') await deps.connections.unsubscribe(connectionId, channelOf(frame.args[0]));
      return;
    default:
      return;
  }
}

async function subscribe(connectionId: string, data: unknown, deps: SocketServerDeps): Promise<void> {
  const decision = await authorizeSubscription(data, deps);
  if (!decision.ok) {
    deps.log.info('socket subscription refused', { connectionId, channel: decision.channel, status: decision.status });
    await deps.post(connectionId, eventFrame('subscription_error', decision.channel, decision.status));
    return;
  }
  await deps.listeners?.socketsOpen(decision.owner);
  const subscribed = await deps.connections.subscribe(connectionId, decision.owner, decision.channel, decision.credential);
  deps.log.info(subscribed ? 'socket subscribed' : 'socket subscription of a closed connection', { connectionId, channel: decision.channel });
}

export interface HelloSettings {
  pingSeconds: number;
  pingTimeoutSeconds: number;
}

/** Waits before each further try of the open packet (ms): about 6 s in all. */
export const HELLO_RETRY_MS = [50, 100, 200, 400, 800, 1500, 3000];

/**
 * How long after its record is made a connection may still be opening (`$connect` running, then
 * hello's tries): the ping does not forget it for a Gone, which the gateway answers until then.
 */
const OPENING_MS = 15_000;

/** Sends Engine.IO's open packet once the connection is open. False when it never was (the client left). */
export async function hello(
  connectionId: string,
  settings: HelloSettings,
  deps: { post: PostToConnection; log: Logger; sleep?: (ms: number) => Promise<void> },
): Promise<boolean> {
  const frame = openFrame(newSid(), { pingInterval: settings.pingSeconds * 1000, pingTimeout: settings.pingTimeoutSeconds * 1000, maxPayload: MAX_FRAME_BYTES });
  const sleep = deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    if (await deps.post(connectionId, frame)) return true;
    const wait = HELLO_RETRY_MS[attempt];
    if (wait === undefined) break;
    await sleep(wait);
  }
  deps.log.info('socket gone before its open packet', { connectionId });
  return false;
}

/**
 * Pings every connection (at most `concurrency` posts at once); forgets the gone ones, hangs up on
 * those that have not subscribed within `subscribeSeconds` of connecting, and ends the subscriptions
 * whose credential ended (each credential checked once a round), so that a socket of a revoked key
 * is told within a round even when no event comes.
 */
export async function pingAll(deps: {
  connections: SocketConnections;
  credentials: Pick<Credentials, 'verifyRef'>;
  post: PostToConnection;
  disconnect: CloseConnection;
  log: Logger;
  subscribeSeconds: number;
  concurrency?: number;
  now?: () => number;
}): Promise<{ pinged: number; gone: number; idle: number; ended: number }> {
  const counts = { pinged: 0, gone: 0, idle: 0, ended: 0 };
  const now = (deps.now ?? Date.now)();
  // One answer per credential for the whole round.
  const checks = new SubscriptionCredentials(deps.credentials, { seconds: 3600, now: () => now });
  const one = async (c: OpenConnection) => {
    // `!(age < limit)`: a connection time that cannot be read counts as too old.
    if (c.pending && !(now - c.connectedAt < deps.subscribeSeconds * 1000)) {
      counts.idle++;
      return hangUp(c.id, deps);
    }
    const ended = await endedCredentials(c, checks, deps);
    if (ended) counts.ended++;
    // A connection that keeps subscriptions of other credentials is still pinged.
    if (ended === 'closed') return;
    if (await deps.post(c.id, PING_FRAME)) counts.pinged++;
    // Gone, unless still opening: the gateway answers Gone until its `$connect` returns.
    else if (!(now - c.connectedAt < OPENING_MS)) {
      counts.gone++;
      await deps.connections.close(c.id);
    }
  };
  // The shards at once, each with its own posts in parallel: a round covers CONNECTION_SHARDS times
  // the sockets one partition's paged query did in the same time.
  const pingShard = async (shard: number) => {
    let cursor: string | undefined;
    do {
      const page = await deps.connections.page(shard, cursor);
      cursor = page.cursor;
      const connections = [...page.connections];
      const worker = async () => {
        for (let c = connections.shift(); c !== undefined; c = connections.shift()) {
          await one(c).catch((err: unknown) => deps.log.warn('socket ping failed', { connectionId: c.id, error: err }));
        }
      };
      await Promise.all(Array.from({ length: deps.concurrency ?? 20 }, worker));
    } while (cursor);
  };
  await Promise.all(Array.from({ length: CONNECTION_SHARDS }, (_, shard) => pingShard(shard)));
  deps.log.info('sockets pinged', counts);
  return counts;
}

/** Ends the connection's subscriptions of each credential that ended: whether any did, and whether that closed it. */
async function endedCredentials(
  c: OpenConnection,
  checks: SubscriptionCredentials,
  deps: { connections: SocketConnections; post: PostToConnection; disconnect: CloseConnection; log: Logger },
): Promise<'ended' | 'closed' | undefined> {
  let outcome: 'ended' | 'closed' | undefined;
  for (const member of c.creds) {
    const parsed = parseCredentialMember(member);
    // A check that could not be made ends nothing (the ping sends no event; the next round checks again).
    if (parsed && (await checks.allows({ credential: parsed.ref }, parsed.owner).catch(() => true))) continue;
    outcome ??= 'ended';
    if (parsed && (await endSubscriptions(await deps.connections.subscriptionsWith(c.id, parsed.ref), deps)).includes(c.id)) outcome = 'closed';
    await deps.connections.forgetCredential(c.id, member);
  }
  return outcome;
}
